import { isManagedKey, RENDERED_DEFAULTS } from '../render/settings.js';
import type { PlanContext } from './plan-context.js';
import type { RenderedCluster } from './rendered-cluster.js';
import type { SettingChange } from './plan-schema.js';

/** Settings of `valkey.conf` that differ, by name, each with what applies it and who set it. */
export function diffSettings(base: RenderedCluster, change: RenderedCluster, ctx: PlanContext): SettingChange[] {
  const names = [...new Set([...base.settings.keys(), ...change.settings.keys()])].sort();
  const out: SettingChange[] = [];
  for (const name of names) {
    const from = base.settings.get(name) ?? null;
    const to = change.settings.get(name) ?? null;
    if (from === to) continue;
    const live = ctx.isLiveSetting(name);
    const setBy = settingSource(name, to !== null ? change : base);
    out.push({ name, from, to, applies: live === true ? 'live' : live === false ? 'restart' : 'unknown', setBy });
  }
  return out;
}

/** The config whose value won in chain resolution (however it spelled the key), valkey-krm's default, or "forced". */
export function settingSource(name: string, cluster: RenderedCluster): string {
  if (isManagedKey(name)) return 'forced';
  const from = cluster.provenance.settings[name];
  if (from !== undefined) return `ValkeyConfig ${from}`;
  return Object.hasOwn(RENDERED_DEFAULTS, name) ? 'valkey-krm default' : 'forced';
}
