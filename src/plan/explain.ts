import { hasErrors, SYSTEM_USERNAMES, type Problem } from '../api/index.js';
import { parseMenu } from '../menu/parse.js';
import { resolveMenu } from '../menu/resolve-menu.js';
import { forcedSettings, isManagedKey } from '../render/settings.js';
import { DEFAULT_USER_LINE } from '../render/acl.js';

/** Why one cluster renders the way it does: every resolved value with the object that set it. */
export interface Explanation {
  namespace: string;
  name: string;
  shards: number;
  replicasPerShard: number;
  tls: boolean;
  configChain: string[];
  image: { image: string; imageRef: string; version: string; setBy: string };
  resources: { name: 'cpu' | 'memory'; value: string; setBy: string }[];
  settings: { name: string; value: string; setBy: string }[];
  /** Keys a config set that valkey-krm manages itself, so they were dropped. */
  dropped: { name: string; setBy: string }[];
  users: { username: string; level: 'platform' | 'team' | 'system'; boundBy: string; roles: string[] }[];
}

/** The cluster NAMESPACE/NAME resolved from these Valkey objects; problems if it cannot be. */
export function explainCluster(
  objects: readonly unknown[],
  namespace: string,
  name: string,
): { explanation?: Explanation; problems: Problem[] } {
  const { menu, problems } = parseMenu(objects);
  const resolved = resolveMenu(menu);
  problems.push(...resolved.problems);
  const found = resolved.clusters.find((c) => c.cluster.metadata.namespace === namespace && c.cluster.metadata.name === name);
  if (!found || hasErrors(problems)) return { problems };
  const { cluster, config } = found;
  const tls = cluster.spec.tls !== undefined;
  const resources: Explanation['resources'] = [];
  for (const key of ['cpu', 'memory'] as const) {
    const value = config.resources[key];
    const from = config.resourcesFrom[key];
    if (value !== undefined) resources.push({ name: key, value: String(value), setBy: `ValkeyConfig ${from ?? config.name}` });
  }
  const keys = Object.keys(config.valkey).sort();
  const settings: Explanation['settings'] = keys
    .filter((k) => !isManagedKey(k))
    .map((k) => ({ name: k, value: config.valkey[k] as string, setBy: `ValkeyConfig ${config.valkeyFrom[k] ?? config.name}` }));
  settings.push(...forcedSettings({ tls }).map(([k, v]) => ({ name: k, value: v, setBy: 'forced' })));
  const roles = (b: { permissions: { roleRef: string }[] }) => [...new Set(b.permissions.map((p) => p.roleRef))];
  const users: Explanation['users'] = [
    {
      username: 'default',
      level: 'system',
      boundBy: `valkey-krm (${DEFAULT_USER_LINE.split(' ').slice(5).join(' ')}: probes only)`,
      roles: [],
    },
    { username: SYSTEM_USERNAMES.replication, level: 'system', boundBy: 'valkey-krm (hash from the render config)', roles: [] },
    { username: SYSTEM_USERNAMES.controller, level: 'system', boundBy: 'valkey-krm (hash from the render config)', roles: [] },
    ...config.acl.map((b) => ({
      username: b.username,
      level: 'platform' as const,
      boundBy: `ValkeyConfig ${config.aclFrom ?? config.name}`,
      roles: roles(b),
    })),
    ...(cluster.spec.acl ?? []).map((b) => ({
      username: b.username,
      level: 'team' as const,
      boundBy: `ValkeyCluster ${namespace}/${name}`,
      roles: roles(b),
    })),
  ];
  return {
    explanation: {
      namespace,
      name,
      shards: cluster.spec.shards,
      replicasPerShard: cluster.spec.replicasPerShard,
      tls,
      configChain: config.chain,
      image: { image: config.image, imageRef: config.imageRef, version: config.imageVersion, setBy: `ValkeyConfig ${config.imageFrom}` },
      resources,
      settings,
      dropped: keys.filter(isManagedKey).map((k) => ({ name: k, setBy: `ValkeyConfig ${config.valkeyFrom[k] ?? config.name}` })),
      users,
    },
    problems,
  };
}

/** The explanation for a terminal (Markdown wraps the same text in a code block). */
export function formatExplanation(e: Explanation): string {
  const pad = (rows: [string, string][]) => {
    const width = Math.max(0, ...rows.map(([a]) => a.length));
    return rows.map(([a, b]) => `  ${a.padEnd(width)}  ${b}`);
  };
  const lines = [
    `${e.namespace}/${e.name}: ${e.shards} shards x ${1 + e.replicasPerShard} pods, TLS ${e.tls ? 'on' : 'off'}`,
    `config chain: ${e.configChain.join(' -> ')}`,
    `image: ${e.image.image} (ValkeyImage ${e.image.imageRef}, version ${e.image.version}; imageRef set by ${e.image.setBy})`,
    `resources: ${e.resources.length ? e.resources.map((r) => `${r.name} ${r.value} (${r.setBy})`).join(', ') : 'none set'}`,
    'settings:',
    ...pad(e.settings.map((s) => [`${s.name} ${s.value === '' ? '""' : s.value}`, s.setBy])),
    ...(e.dropped.length ? ['dropped (valkey-krm sets these itself):', ...pad(e.dropped.map((d) => [d.name, d.setBy]))] : []),
    'ACL users:',
    ...pad(e.users.map((u) => [u.username, `${u.level}: ${u.boundBy}${u.roles.length ? `; roles ${u.roles.join(', ')}` : ''}`])),
  ];
  return `${lines.join('\n')}\n`;
}
