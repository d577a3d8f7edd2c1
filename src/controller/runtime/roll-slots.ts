/**
 * The fleet's roll slots (--max-concurrent-rolls). A cluster holds a slot while its roll is in
 * progress: in this process from the pass that started it to the pass that finds it finished, and,
 * for a controller just started, while its status still says RollInProgress.
 *
 * `claim` checks and takes in one synchronous call. A pass decides to start a roll only after
 * awaiting its nodes, and other clusters' passes run meanwhile (--concurrency), so a slot that was
 * only checked could be found free by two passes at once and both would roll.
 */
export class RollSlots {
  private readonly held = new Set<string>();

  /**
   * @param limit how many clusters may roll at once
   * @param inStatus the clusters whose status says their roll is in progress
   */
  constructor(
    private readonly limit: number,
    private readonly inStatus: () => Iterable<string>,
  ) {}

  /** Whether `key` could start a roll now: fewer than `limit` other clusters hold a slot. */
  free(key: string): boolean {
    const holders = new Set(this.held);
    for (const k of this.inStatus()) holders.add(k);
    holders.delete(key);
    return holders.size < this.limit;
  }

  /**
   * Takes a slot for `key` and says whether it has one. A roll under way keeps the slot it has (it
   * is never stopped half-way, even if the limit was lowered); one about to start gets a slot only
   * if one is free now.
   */
  claim(key: string, underWay: boolean): boolean {
    if (!underWay && !this.held.has(key) && !this.free(key)) return false;
    this.held.add(key);
    return true;
  }

  /** `key`'s roll is not in progress (finished, held, or waiting for its turn): its slot is free. */
  release(key: string): void {
    this.held.delete(key);
  }
}
