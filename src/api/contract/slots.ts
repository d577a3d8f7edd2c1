/** Hash slots: 16384 of them, kept as inclusive ranges. */
export const TOTAL_SLOTS = 16384;

export type SlotRange = readonly [first: number, last: number];

/**
 * Shard `shard` of `shards` gets a contiguous range; ranges are as even as valkey-cli makes them
 * (`--cluster create`), so 3 shards get 0-5460, 5461-10922, 10923-16383.
 */
export function shardSlotRange(shard: number, shards: number): SlotRange {
  const per = TOTAL_SLOTS / shards;
  const first = shard === 0 ? 0 : Math.round(shard * per - 1) + 1;
  const last = shard === shards - 1 ? TOTAL_SLOTS - 1 : Math.round((shard + 1) * per - 1);
  return [first, last];
}

export const countSlots = (ranges: readonly SlotRange[]): number => ranges.reduce((n, [a, b]) => n + b - a + 1, 0);

/** Sorted slot numbers → the fewest inclusive ranges. */
export function toRanges(slots: Iterable<number>): SlotRange[] {
  const out: [number, number][] = [];
  for (const s of [...slots].sort((a, b) => a - b)) {
    const last = out[out.length - 1];
    if (last && s === last[1] + 1) last[1] = s;
    else if (!last || s > last[1]) out.push([s, s]);
  }
  return out;
}

export const formatRanges = (ranges: readonly SlotRange[]): string => ranges.map(([a, b]) => (a === b ? String(a) : `${a}-${b}`)).join(',');

/** `5461` or `5461-10922`, as CLUSTER NODES prints a node's slots; undefined if it is neither. */
export function readSlotRange(token: string): SlotRange | undefined {
  const m = /^(\d+)(?:-(\d+))?$/.exec(token);
  if (!m) return undefined;
  const first = Number(m[1]);
  return [first, m[2] === undefined ? first : Number(m[2])];
}
