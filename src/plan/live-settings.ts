import { lookupSetting } from '../api/valkey-table.js';

/**
 * Whether `CONFIG SET` applies a Valkey setting to a running server (true), it needs a restart
 * (false), or the settings table does not know it (undefined: the plan treats it as a restart).
 */
export type LiveSettingLookup = (name: string) => boolean | undefined;

/**
 * From the one settings table (src/api/valkey-settings.ts, generated from real servers) that the
 * renderer and the controller read too, so the plan predicts what they will do. A protected
 * setting (`dir`, `dbfilename`) is live only where `enable-protected-configs` allows it, which
 * valkey-krm never turns on: a restart.
 */
export const isLiveSetting: LiveSettingLookup = (name) => {
  const known = lookupSetting(name);
  if (!known) return undefined;
  return known.facts.live && !known.facts.protected;
};
