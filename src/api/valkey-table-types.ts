/** The shapes of the Valkey tables (generated from real servers, plus hand-recorded later releases). */

/** How Valkey's start-up parser reads the value. */
export type SettingType = 'bool' | 'integer' | 'memory' | 'memory-or-percent' | 'enum' | 'string' | 'special';

/**
 * Where a name was seen: in the 8.0.1 release (so in every later one), only in the 2024-10
 * development build of what became 8.1/9.0, or only in Valkey's own documentation of a release
 * this machine has no binary of (hand-recorded).
 */
export type ValkeySince = '<=8.0.1' | '8.1/9.0 dev' | '8.1' | '9.0';

export interface SettingFacts {
  /** `CONFIG SET` accepts it on a running server; otherwise it needs a restart. */
  readonly live: boolean;
  /** `live` holds from this release on; before it, the setting needs a restart (`io-threads`: 9.0). */
  readonly liveSince?: '8.1' | '9.0';
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
  readonly since: ValkeySince;
  /** The 8.0.1 release has it and the development build no longer does. */
  readonly removedAfter?: '8.0.1';
  /** What a hand-recorded entry is taken from. */
  readonly source?: string;
}

export interface NameFacts {
  readonly since: ValkeySince;
  readonly removedAfter?: '8.0.1';
  readonly source?: string;
}
