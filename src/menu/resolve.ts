import type { AclBinding, Quantity, ValkeyConfig } from '../api/index.js';
import { canonicalSettingName } from '../api/valkey-table.js';

/** Chains longer than this fail: the selected config counts as one. */
export const MAX_CHAIN_LENGTH = 10;

/** A config chain merged by the documented rules; images are attached in a second step. */
export interface MergedChain {
  /** The selected config first, its root last. */
  chain: string[];
  imageRef?: string;
  /** The config in the chain that supplied imageRef. */
  imageFrom?: string;
  resources: { cpu?: Quantity; memory?: Quantity };
  /** One key per setting, however spelled (Valkey reads names case-insensitively, and aliases). */
  valkey: Record<string, string>;
  /** For each merged Valkey key, as spelled, the config whose value won. */
  valkeyFrom: Record<string, string>;
  /**
   * For each setting by canonical name (lowercase, an alias as its setting: how valkey.conf names
   * it), the config whose value won: what the plan and explain report as "set by".
   */
  settingFrom: Record<string, string>;
  /** For each resource the chain sets, the config that set it. */
  resourcesFrom: { cpu?: string; memory?: string };
  acl: AclBinding[];
  /** The config that supplied the acl list, if any did. */
  aclFrom?: string;
}

export type ChainFailure =
  | { reason: 'missing-base'; chain: string[]; config: string; missing: string; invalid: boolean }
  | { reason: 'cycle'; chain: string[]; cycle: string[] }
  | { reason: 'too-long'; chain: string[] }
  | { reason: 'base-failed'; chain: string[]; cause: Exclude<ChainFailure, { reason: 'base-failed' }> };

export type ChainResult = { ok: true; value: MergedChain } | { ok: false; failure: ChainFailure };

/** Failure chains are only for messages; keep them readable (and memory bounded) on absurd inputs. */
const SHOWN = MAX_CHAIN_LENGTH + 2;

/**
 * Resolves every config's chain once. Each config is visited once and merged onto its already
 * merged base, so M configs cost O(M) and N clusters then look their config up in O(1).
 */
export function mergeAllChains(
  configs: ReadonlyMap<string, ValkeyConfig>,
  onMerge: (name: string) => void = () => {},
  isInvalid: (name: string) => boolean = () => false,
): Map<string, ChainResult> {
  const memo = new Map<string, ChainResult>();
  for (const name of configs.keys()) {
    if (memo.has(name)) continue;
    // Walk towards the root until a config already resolved, a root, a dangling baseRef or a cycle.
    const path: string[] = [];
    const position = new Map<string, number>();
    let tail: ChainResult | undefined;
    let current = name;
    for (;;) {
      const known = memo.get(current);
      if (known) {
        tail = known;
        break;
      }
      const seenAt = position.get(current);
      if (seenAt !== undefined) {
        // Each member's failure holds the cycle from that member on, cut to what a message shows:
        // a cycle of M configs then costs O(M), not M copies of M names.
        const members = path.slice(seenAt);
        for (const [at, member] of members.entries()) {
          const rotated = rotatedPrefix(members, at, SHOWN + 1);
          memo.set(member, { ok: false, failure: { reason: 'cycle', chain: rotated.slice(0, SHOWN), cycle: rotated } });
        }
        path.length = seenAt;
        tail = memo.get(current);
        break;
      }
      position.set(current, path.length);
      path.push(current);
      const base = (configs.get(current) as ValkeyConfig).spec.baseRef;
      if (base === undefined) break;
      if (!configs.has(base)) {
        tail = {
          ok: false,
          failure: { reason: 'missing-base', chain: [current, base], config: current, missing: base, invalid: isInvalid(base) },
        };
        const own = path.pop() as string;
        memo.set(own, tail);
        break;
      }
      current = base;
    }
    for (let i = path.length - 1; i >= 0; i--) {
      const member = path[i] as string;
      onMerge(member);
      tail = extend(configs.get(member) as ValkeyConfig, tail);
      memo.set(member, tail);
    }
  }
  return memo;
}

/** The cycle walked from `members[at]` round to itself again, at most `limit` names. */
function rotatedPrefix(members: readonly string[], at: number, limit: number): string[] {
  const out: string[] = [];
  for (let k = 0; k <= members.length && out.length < limit; k++) out.push(members[(at + k) % members.length] as string);
  return out;
}

/** Puts `config` in front of its base's merged result: the child wins field by field. */
function extend(config: ValkeyConfig, base: ChainResult | undefined): ChainResult {
  const name = config.metadata.name;
  if (base && !base.ok) {
    // The cause is always the root failure, never another base-failed: a chain of 100,000 configs
    // would otherwise nest its message (and the walk that writes it) 100,000 deep.
    const cause = base.failure.reason === 'base-failed' ? base.failure.cause : base.failure;
    return { ok: false, failure: { reason: 'base-failed', chain: [name, ...base.failure.chain].slice(0, SHOWN), cause } };
  }
  const parent = base?.value;
  const chain = [name, ...(parent?.chain ?? [])];
  if (chain.length > MAX_CHAIN_LENGTH) return { ok: false, failure: { reason: 'too-long', chain: chain.slice(0, SHOWN) } };
  const spec = config.spec;
  const merged: MergedChain = {
    chain,
    resources: {},
    valkey: { ...parent?.valkey },
    valkeyFrom: { ...parent?.valkeyFrom },
    settingFrom: { ...parent?.settingFrom },
    resourcesFrom: {},
    acl: spec.acl ?? parent?.acl ?? [],
  };
  // Valkey reads `MAXMEMORY`, `maxmemory` and an alias such as `slaveof` as one setting, so the
  // child's key replaces whichever spelling its base used (the key keeps the child's spelling, so
  // messages point at the field as written). Own keys are sorted, so that two spellings in one
  // config (an error of their own) merge the same way whatever the input order.
  const ownKeys = Object.keys(spec.valkey ?? {}).sort();
  if (ownKeys.length > 0) {
    const spelled = new Map(Object.keys(merged.valkey).map((k) => [canonicalSettingName(k), k]));
    for (const key of ownKeys) {
      const canonical = canonicalSettingName(key);
      const before = spelled.get(canonical);
      if (before !== undefined && before !== key) {
        delete merged.valkey[before];
        delete merged.valkeyFrom[before];
      }
      merged.valkey[key] = (spec.valkey as Record<string, string>)[key] as string;
      merged.valkeyFrom[key] = name;
      merged.settingFrom[canonical] = name;
      spelled.set(canonical, key);
    }
  }
  const imageRef = spec.imageRef ?? parent?.imageRef;
  if (imageRef !== undefined) {
    merged.imageRef = imageRef;
    merged.imageFrom = spec.imageRef !== undefined ? name : parent?.imageFrom;
  }
  const cpu = spec.resources?.cpu ?? parent?.resources.cpu;
  const memory = spec.resources?.memory ?? parent?.resources.memory;
  if (cpu !== undefined) merged.resources.cpu = cpu;
  if (memory !== undefined) merged.resources.memory = memory;
  const cpuFrom = spec.resources?.cpu !== undefined ? name : parent?.resourcesFrom.cpu;
  const memoryFrom = spec.resources?.memory !== undefined ? name : parent?.resourcesFrom.memory;
  if (cpuFrom !== undefined) merged.resourcesFrom.cpu = cpuFrom;
  if (memoryFrom !== undefined) merged.resourcesFrom.memory = memoryFrom;
  const aclFrom = spec.acl !== undefined ? name : parent?.aclFrom;
  if (aclFrom !== undefined) merged.aclFrom = aclFrom;
  return { ok: true, value: merged };
}

/** "a → b → c", capped so a message never grows without bound. */
export function formatChain(chain: readonly string[]): string {
  const shown = chain.slice(0, SHOWN).join(' → ');
  return chain.length >= SHOWN ? `${shown} → …` : shown;
}

/** The config that carries the root cause's own error (see reportChainFailures). */
export function failingConfig(failure: ChainFailure): string {
  switch (failure.reason) {
    case 'missing-base':
      return failure.config;
    case 'cycle':
      return failure.cycle[0] as string;
    case 'too-long':
      return failure.chain[0] as string;
    case 'base-failed':
      return failingConfig(failure.cause);
  }
}

/** The root cause of a failure and the chain walked to find it. */
export function describeFailure(failure: ChainFailure): string {
  switch (failure.reason) {
    case 'missing-base':
      return failure.invalid
        ? `its baseRef chain ${formatChain(failure.chain)} reaches ValkeyConfig "${failure.missing}", which is invalid (see its errors)`
        : `its baseRef chain ${formatChain(failure.chain)} ends at ValkeyConfig "${failure.missing}", which does not exist`;
    case 'cycle':
      return `its baseRef chain is a cycle: ${formatChain(failure.cycle)}`;
    case 'too-long':
      return `its baseRef chain ${formatChain(failure.chain)} is longer than the ${MAX_CHAIN_LENGTH} configs allowed`;
    case 'base-failed':
      return `its base cannot be resolved: ${describeFailure(failure.cause)} (chain walked: ${formatChain(failure.chain)})`;
  }
}
