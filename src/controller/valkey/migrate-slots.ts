/**
 * Carries out one rebalance step (cluster/rebalance.ts). Where every primary has Valkey 9's atomic
 * slot migration (`CLUSTER MIGRATESLOTS`, found with `COMMAND INFO` at run time; every supported
 * version has it) the step is one atomic job (valkey/migrate-slots-atomic.ts). Otherwise, or when
 * the caller asks for it (the rest of a scaling after an atomic step failed), the step takes the
 * classic slot migration protocol, which every Valkey version has: per slot, `CLUSTER SETSLOT IMPORTING` on the target, `MIGRATING`
 * on the source, `CLUSTER GETKEYSINSLOT` + `MIGRATE ... AUTH2 ... KEYS` in bounded batches, then
 * `CLUSTER SETSLOT NODE` on the target, the source and every other primary. Clients keep working:
 * the source answers ASK for keys already moved, and MOVED once the slot is the target's.
 */
import type { MigrationPath } from '../cluster/migration-path.js';
import type { Endpoint } from '../cluster/observation.js';
import type { SlotRepair } from '../cluster/rebalance.js';
import { formatRanges, toRanges, type SlotRange } from '../../api/contract/slots.js';
import type { NodeSession } from './node-session.js';
import { migrateSlotsAtomically, type AtomicOptions } from './migrate-slots-atomic.js';
import { CommandError } from './resp-connection.js';

/** A primary the step talks to. */
export interface MigrationNode {
  id: string;
  endpoint: Pick<Endpoint, 'host' | 'port'>;
  session: NodeSession;
}

export interface MigrateOptions {
  /** Keys per MIGRATE (default 100). */
  keysPerBatch?: number;
  /** MIGRATE's own timeout in ms (default 5000). */
  migrateTimeoutMs?: number;
  /** Checked between batches: an aborted step stops where it is, leaving markers for the healer. */
  signal?: AbortSignal;
  /** Told after each slot is handed over (classic path). */
  onSlot?: (slot: number, keysMoved: number) => void;
  /** `auto` (default): atomic where every primary has it, else classic. `classic`: always classic. */
  path?: 'auto' | 'classic';
  /** The atomic path's polling and deadline. */
  atomic?: Omit<AtomicOptions, 'signal'>;
}

export interface StepOutcome {
  slotsMoved: number;
  keysMoved: number;
  /** Whether every primary offers Valkey 9's atomic slot migration. */
  atomicAvailable: boolean;
  /** The protocol the step ran. */
  path: MigrationPath;
  /** Absent when every slot was handed over. */
  error?: string;
  /** Other primaries that did not take `SETSLOT NODE` (they learn it by gossip; not a failure). */
  warnings: string[];
}

const DEFAULT_KEYS = 100;
const DEFAULT_TIMEOUT = 5_000;

const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** `COMMAND INFO cluster|migrateslots`: a nil entry on servers before 9.0. */
export const detectAtomicSlotMigration = (s: NodeSession): Promise<boolean> => s.knowsCommand('cluster|migrateslots').catch(() => false);

/** Whether every one of `primaries` has atomic slot migration: the target must take the import, the source run it. */
export const everyNodeHasAtomic = async (primaries: readonly MigrationNode[]): Promise<boolean> =>
  primaries.length > 0 && (await Promise.all(primaries.map((p) => detectAtomicSlotMigration(p.session)))).every(Boolean);

/** Moves every key of `slot` still on the source; BUSYKEY means an earlier copy reached the target, and the source's is current. */
async function moveKeys(from: MigrationNode, to: MigrationNode, slot: number, opts: MigrateOptions): Promise<number> {
  const batch = opts.keysPerBatch ?? DEFAULT_KEYS;
  const timeout = opts.migrateTimeoutMs ?? DEFAULT_TIMEOUT;
  let moved = 0;
  for (;;) {
    if (opts.signal?.aborted) throw new Error(`aborted while moving keys of slot ${slot}`);
    const keys = await from.session.getKeysInSlot(slot, batch);
    if (keys.length === 0) return moved;
    try {
      await from.session.migrateKeys(to.endpoint, keys, timeout);
    } catch (e) {
      if (!(e instanceof CommandError && e.code === 'BUSYKEY')) throw e;
      await from.session.migrateKeys(to.endpoint, keys, timeout, true);
    }
    moved += keys.length;
    // A migrating slot takes no new key on the source (a write to a missing key is sent on with
    // ASK), so a short answer was the slot's last keys: no need to ask again.
    if (keys.length < batch) return moved;
  }
}

/** SETSLOT errors that mean the state asked for is already there. */
const alreadyThere = (e: unknown): boolean =>
  e instanceof CommandError && /already the owner|not the owner|I'm not the owner/i.test(e.reply.message);

/**
 * Slots are marked and handed over a group at a time, each command of a group sent at once on the
 * node's connection: the node runs them back to back and saves nodes.conf once for all of them,
 * where one slot at a time costs a round trip and a save per command. The keys still move slot by
 * slot. A group interrupted half way leaves its slots marked, which the healer settles one by one.
 */
const SLOTS_PER_GROUP = 32;

const ignoreAlreadyThere = (e: unknown): void => {
  if (!alreadyThere(e)) throw e;
};

async function markGroup(from: MigrationNode, to: MigrationNode, slots: readonly number[]): Promise<void> {
  await Promise.all(slots.map((slot) => to.session.setSlot(slot, { importing: from.id }).catch(ignoreAlreadyThere)));
  await Promise.all(slots.map((slot) => from.session.setSlot(slot, { migrating: to.id }).catch(ignoreAlreadyThere)));
}

/**
 * The target takes the group's slots first (once it owns a slot, the source's MOVED replies point
 * somewhere that answers), then the source lets go, then the other primaries are told, side by
 * side; they would learn it by gossip, so a refusal there is a warning, not a failure.
 */
async function handOverGroup(
  from: MigrationNode,
  to: MigrationNode,
  others: readonly MigrationNode[],
  slots: readonly number[],
  warnings: string[],
): Promise<void> {
  await Promise.all(slots.map((slot) => to.session.setSlot(slot, { node: to.id })));
  await Promise.all(slots.map((slot) => from.session.setSlot(slot, { node: to.id })));
  await Promise.all(
    others.flatMap((o) =>
      slots.map((slot) =>
        o.session.setSlot(slot, { node: to.id }).catch((e: unknown) => {
          warnings.push(`CLUSTER SETSLOT ${slot} NODE on ${o.id}: ${message(e)}`);
        }),
      ),
    ),
  );
}

/**
 * One group of slots, start to end: marked, their keys moved slot by slot, handed over. Also
 * finishes slots a previous run left half moved (every command is safe to repeat). Keys moved,
 * per slot of the group.
 */
async function moveGroup(
  from: MigrationNode,
  to: MigrationNode,
  others: readonly MigrationNode[],
  group: readonly number[],
  opts: MigrateOptions,
  warnings: string[],
): Promise<number[]> {
  await markGroup(from, to, group);
  const keys: number[] = [];
  for (const slot of group) keys.push(await moveKeys(from, to, slot, opts));
  if (opts.signal?.aborted) throw new Error(`aborted before handing over slot(s) ${formatRanges(toRanges(group))}`);
  await handOverGroup(from, to, others, group, warnings);
  for (const [j, slot] of group.entries()) opts.onSlot?.(slot, keys[j] ?? 0);
  return keys;
}

/** `primaries`: every primary of the cluster, the step's source and target included. */
export async function migrateSlots(
  step: { from: string; to: string; slots: readonly SlotRange[] },
  primaries: readonly MigrationNode[],
  opts: MigrateOptions = {},
): Promise<StepOutcome> {
  const from = primaries.find((p) => p.id === step.from);
  const to = primaries.find((p) => p.id === step.to);
  const warnings: string[] = [];
  const outcome: StepOutcome = { slotsMoved: 0, keysMoved: 0, atomicAvailable: false, path: 'classic', warnings };
  if (!from || !to) return { ...outcome, error: `no connection to ${from ? step.to : step.from}` };
  outcome.atomicAvailable = await everyNodeHasAtomic(primaries);
  if (outcome.atomicAvailable && opts.path !== 'classic') {
    const atomic = await migrateSlotsAtomically(from, to, step.slots, { ...opts.atomic, ...(opts.signal ? { signal: opts.signal } : {}) });
    return { ...outcome, ...atomic, path: 'atomic' };
  }
  const others = primaries.filter((p) => p !== from && p !== to);
  const slots = step.slots.flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, i) => a + i));
  try {
    for (let i = 0; i < slots.length; i += SLOTS_PER_GROUP) {
      const keys = await moveGroup(from, to, others, slots.slice(i, i + SLOTS_PER_GROUP), opts, warnings);
      outcome.keysMoved += keys.reduce((n, k) => n + k, 0);
      outcome.slotsMoved += keys.length;
    }
    return outcome;
  } catch (e) {
    return { ...outcome, error: `moving slots from ${from.id} to ${to.id}: ${message(e)}` };
  }
}

/** Settles the slots an interrupted migration left marked, as planned by `planRepairs`. */
export async function repairSlots(
  repairs: readonly SlotRepair[],
  primaries: readonly MigrationNode[],
  opts: MigrateOptions = {},
): Promise<{ repaired: number; errors: string[] }> {
  const byId = new Map(primaries.map((p) => [p.id, p]));
  const errors: string[] = [];
  let repaired = 0;
  for (const r of repairs) {
    const from = byId.get(r.source.id);
    const to = byId.get(r.target.id);
    try {
      if (r.resolution === 'finish') {
        if (!from || !to) throw new Error('source or target is not connected');
        await moveGroup(
          from,
          to,
          [...byId.values()].filter((p) => p !== from && p !== to),
          [r.slot],
          opts,
          [],
        );
      } else {
        // Nothing reached the target: clearing both markers leaves the slot where it was.
        for (const n of [from, to]) if (n) await n.session.setSlot(r.slot, 'stable');
      }
      repaired++;
    } catch (e) {
      errors.push(`slot ${r.slot} (${r.resolution}): ${message(e)}`);
    }
  }
  return { repaired, errors };
}
