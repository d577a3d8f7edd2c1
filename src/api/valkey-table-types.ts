/** The shapes of the Valkey tables (generated from real servers, plus a few hand-recorded facts). */

/** How Valkey's start-up parser reads the value. */
export type SettingType = 'bool' | 'integer' | 'memory' | 'memory-or-percent' | 'enum' | 'string' | 'special';

/**
 * Where a name was seen: in the 8.0.1 release (so, unless it was dropped, in every later one), or
 * only in the supported 9.1.2 release ("9.x": 8.0.1 lacks it; some came in 8.1, 9.0 or 9.1). `9.1`
 * is hand-recorded with its source (valkey-later-releases.ts): a 9.x name Valkey's release notes
 * date to 9.1.0, so a 9.0.x image lacks it. Every supported version is at least 9.0.1.
 */
export type ValkeySince = '<=8.0.1' | '9.x' | '9.1';

export interface SettingFacts {
  /** `CONFIG SET` accepts it on a running server; otherwise it needs a restart. */
  readonly live: boolean;
  /** `CONFIG SET` needs `enable-protected-configs` for it. */
  readonly protected?: boolean;
  /** Valkey's test and debug settings, left out of `CONFIG GET *`. */
  readonly hidden?: boolean;
  /** A directive of the config file only (`include`, `user`, ...), not a setting CONFIG GET knows. */
  readonly fileOnly?: boolean;
  readonly type: SettingType;
  /** The values a bool or enum accepts, case-insensitively. */
  readonly values?: readonly string[];
  /** An enum that takes several values at once (`shutdown-on-sigint nosave now`). */
  readonly multi?: boolean;
  /**
   * An integer or memory setting's bounds, inclusive, as 9.1.2 prints them when a value is out of
   * range (decimal text: some pass 2^53). A memory value above 2^63 - 1 is negative to a signed
   * setting; `max` above 2^63 - 1 marks an unsigned one.
   */
  readonly min?: string;
  readonly max?: string;
  /** A memory-or-percent setting's largest percentage (`maxmemory-clients 100%`). */
  readonly maxPercent?: number;
  /** notify-keyspace-events: the characters its value may be made of. */
  readonly chars?: string;
  readonly since: ValkeySince;
  /**
   * 8.0.1 has it; 9.1.2 still accepts the line at start-up but ignores it (a deprecated setting:
   * `CONFIG GET` no longer lists it and `CONFIG SET` refuses it).
   */
  readonly ignoredBy?: '9.1.2';
  /** 8.0.1 has it and 9.1.2 refuses it at start-up ("Bad directive"). */
  readonly removedAfter?: '8.0.1';
  /** What a hand-recorded entry or fact is taken from. */
  readonly source?: string;
}

export interface NameFacts {
  readonly since: ValkeySince;
  readonly removedAfter?: '8.0.1';
  readonly source?: string;
}
