import { isManagedKey } from '../render/settings.js';
import type { MenuIndex } from './menu-index.js';
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
    const setBy = to !== null ? settingSource(name, change.chain, ctx.change) : settingSource(name, base.chain, ctx.base);
    out.push({ name, from, to, applies: live === true ? 'live' : live === false ? 'restart' : 'unknown', setBy });
  }
  return out;
}

/** The first config in the chain (selected config first) whose map sets the key, or "forced". */
export function settingSource(name: string, chain: readonly string[], menu: MenuIndex): string {
  if (isManagedKey(name)) return 'forced';
  for (const config of chain) if (menu.config(config)?.valkey?.[name] !== undefined) return `ValkeyConfig ${config}`;
  return 'forced';
}
