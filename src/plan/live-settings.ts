import { isLiveSetting as fromTable } from '../api/valkey-table.js';

/**
 * Whether `CONFIG SET` applies a Valkey setting to a running server (true), it needs a restart
 * (false), or the settings table does not know it (undefined: the plan treats it as a restart).
 */
export type LiveSettingLookup = (name: string) => boolean | undefined;

/**
 * The one settings table (src/api/valkey-settings.ts, generated from real servers) that the
 * renderer and the controller read too, so the plan predicts what they will do.
 */
export const liveSettingFromTable: LiveSettingLookup = (name) => fromTable(name);
