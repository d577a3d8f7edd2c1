/**
 * Valkey 9's atomic slot migration, as the controller drives it. One `CLUSTER MIGRATESLOTS
 * SLOTSRANGE <a> <b> ... NODE <target>` to the source starts a job that the two servers run on
 * their own: the source forks a snapshot of the slots, streams it and then the writes made since to
 * the target (which runs them as the target's replication user: `primaryuser`), pauses writes to
 * those slots for the last bytes, and the target takes ownership in one step. Clients see neither
 * ASK nor a half-moved slot; a job that fails leaves every slot where it was and the target drops
 * what it had imported.
 *
 * The controller watches the job with `CLUSTER GETSLOTMIGRATIONS` (on the source and the target)
 * and stops it with `CLUSTER CANCELSLOTMIGRATIONS` only when the step must stop (its deadline, or
 * the caller's signal). The jobs live in the servers' memory only: a controller that restarts finds
 * a running job there and waits for it (`awaitRunningMigrations`); a server that restarts forgets
 * its jobs, and its peer fails its side of them.
 */
import { countSlots, type SlotRange } from '../../api/contract/slots.js';
import { isMyself } from '../cluster/cluster-view.js';
import { parseClusterNodes } from './cluster-nodes.js';
import type { MigrationNode } from './migrate-slots.js';
import type { SlotMigrationJob } from './node-session.js';

export interface AtomicOptions {
  /** How often the job is read back (default 50 ms). */
  pollMs?: number;
  /** A job still running after this long is cancelled (default 120 s). */
  stepTimeoutMs?: number;
  /** Aborting it cancels the job (CLUSTER CANCELSLOTMIGRATIONS on the source). */
  signal?: AbortSignal;
}

export interface AtomicOutcome {
  slotsMoved: number;
  keysMoved: number;
  /** Absent when the target owns every slot of the step. */
  error?: string;
}

const DEFAULT_POLL = 50;
const DEFAULT_TIMEOUT = 120_000;
const FINISHED = new Set(['success', 'failed', 'cancelled']);

export const isFinished = (job: SlotMigrationJob): boolean => FINISHED.has(job.state);

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const message = (e: unknown): string => (e instanceof Error ? e.message : String(e));

/** The server's own spelling of ranges (`0-99 200-299`), for matching a job to a step. */
export const serverRanges = (ranges: readonly SlotRange[]): string => ranges.map(([a, b]) => `${a}-${b}`).join(' ');

/** Polls `node` until the job called `name` is finished; undefined once `deadline` passes or the signal fires. */
async function watch(node: MigrationNode, name: string, deadline: number, opts: AtomicOptions): Promise<SlotMigrationJob | undefined> {
  for (;;) {
    const job = (await node.session.slotMigrations()).find((j) => j.name === name);
    if (!job) throw new Error(`${node.id} no longer reports slot migration ${name} (did it restart?)`);
    if (isFinished(job)) return job;
    if (opts.signal?.aborted || Date.now() >= deadline) return undefined;
    await sleep(opts.pollMs ?? DEFAULT_POLL);
  }
}

/** How many of `ranges` the node's own CLUSTER NODES line says it owns. */
async function ownedOf(node: MigrationNode, ranges: readonly SlotRange[]): Promise<number> {
  const self = parseClusterNodes(await node.session.clusterNodes()).find(isMyself);
  let owned = 0;
  for (const [a, b] of ranges) for (let s = a; s <= b; s++) if (self?.slots.some(([x, y]) => s >= x && s <= y)) owned++;
  return owned;
}

/** Keys now on the target in the step's slots (sent at once on its connection). */
async function keysIn(node: MigrationNode, ranges: readonly SlotRange[]): Promise<number> {
  const slots = ranges.flatMap(([a, b]) => Array.from({ length: b - a + 1 }, (_, i) => a + i));
  const counts = await Promise.all(slots.map((s) => node.session.countKeysInSlot(s)));
  return counts.reduce((n, c) => n + c, 0);
}

/** What a finished, unsuccessful job leaves: the servers roll it back, which ownership confirms. */
async function afterFailure(from: MigrationNode, to: MigrationNode, ranges: readonly SlotRange[], ended: string): Promise<AtomicOutcome> {
  const total = countSlots(ranges);
  const onTarget = await ownedOf(to, ranges).catch(() => undefined);
  const onSource = await ownedOf(from, ranges).catch(() => undefined);
  const where =
    onSource === total
      ? `rolled back: all ${total} slot(s) are still on ${from.id}`
      : `${onSource ?? 'an unknown number of'} of ${total} slot(s) still on ${from.id}, ${onTarget ?? 'an unknown number'} on ${to.id}`;
  return { slotsMoved: onTarget ?? 0, keysMoved: 0, error: `${ended}; ${where}` };
}

/** One step: `ranges` from `from` to `to` in one job, waited for. */
export async function migrateSlotsAtomically(
  from: MigrationNode,
  to: MigrationNode,
  ranges: readonly SlotRange[],
  opts: AtomicOptions = {},
): Promise<AtomicOutcome> {
  const what = `CLUSTER MIGRATESLOTS ${serverRanges(ranges)} to ${to.id}`;
  let name: string | undefined;
  try {
    const before = new Set((await from.session.slotMigrations()).map((j) => j.name));
    await from.session.migrateSlotsTo(to.id, ranges);
    const job = (await from.session.slotMigrations()).find(
      (j) => !before.has(j.name) && j.operation === 'EXPORT' && j.targetNode === to.id && j.slotRanges === serverRanges(ranges),
    );
    if (!job) return { slotsMoved: 0, keysMoved: 0, error: `${what}: the source accepted it but reports no such job` };
    name = job.name;
    const deadline = Date.now() + (opts.stepTimeoutMs ?? DEFAULT_TIMEOUT);
    let done = await watch(from, name, deadline, opts);
    let cancelled = '';
    if (!done) {
      cancelled = opts.signal?.aborted ? 'the step was stopped' : `still running after ${(opts.stepTimeoutMs ?? DEFAULT_TIMEOUT) / 1000} s`;
      await from.session.cancelSlotMigrations();
      done = await watch(from, name, Date.now() + 10_000, { ...opts, signal: undefined });
    }
    if (done?.state === 'success') return { slotsMoved: countSlots(ranges), keysMoved: await keysIn(to, ranges) };
    // The target's side of the job often says more ("Data was flushed") than the source's ("Connection lost").
    const theirs = (await to.session.slotMigrations().catch(() => [])).find((j) => j.name === name);
    const said = [done?.message, theirs?.message && theirs.message !== done?.message ? `the target: ${theirs.message}` : '']
      .filter(Boolean)
      .join('; ');
    const ended = done
      ? `slot migration ${name} ended ${done.state}${said ? ` (${said})` : ''}${cancelled ? `: cancelled, ${cancelled}` : ''}`
      : `slot migration ${name} did not finish after CLUSTER CANCELSLOTMIGRATIONS`;
    return await afterFailure(from, to, ranges, `${what}: ${ended}`);
  } catch (e) {
    const ended = `${what}${name ? ` (job ${name})` : ''}: ${message(e)}`;
    return await afterFailure(from, to, ranges, ended).catch(() => ({ slotsMoved: 0, keysMoved: 0, error: ended }));
  }
}

/** A job some primary reports as running, with the node that reports it. */
export interface RunningMigration {
  node: MigrationNode;
  job: SlotMigrationJob;
}

/** Every job still running on any of `primaries` (exports and imports: a restarted source leaves only the import). */
export async function runningMigrations(primaries: readonly MigrationNode[]): Promise<RunningMigration[]> {
  const read = await Promise.all(primaries.map(async (node) => ({ node, jobs: await node.session.slotMigrations() })));
  return read.flatMap(({ node, jobs }) => jobs.filter((j) => !isFinished(j)).map((job) => ({ node, job })));
}

export const describeJob = (j: SlotMigrationJob): string =>
  `slot migration ${j.name} of ${j.slotRanges} from ${j.sourceNode} to ${j.targetNode} (${j.operation.toLowerCase()}, ${j.state})`;

/**
 * Waits, up to `budgetMs`, for jobs started before this pass (by a controller that since restarted,
 * or a step that ran out of time): nothing new is started while one runs. `waited`: some job was
 * running (the slots may have moved since they were read); `running`: those still running at the
 * end, described (empty when none is left).
 */
export async function awaitRunningMigrations(
  primaries: readonly MigrationNode[],
  budgetMs: number,
  opts: Pick<AtomicOptions, 'pollMs'> = {},
): Promise<{ waited: boolean; running: string[] }> {
  const deadline = Date.now() + budgetMs;
  let waited = false;
  for (;;) {
    const running = await runningMigrations(primaries);
    if (running.length === 0 || Date.now() >= deadline)
      return { waited: waited || running.length > 0, running: running.map((r) => `${describeJob(r.job)} on ${r.node.id}`) };
    waited = true;
    await sleep(opts.pollMs ?? DEFAULT_POLL * 4);
  }
}
