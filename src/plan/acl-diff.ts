import { RESERVED_USERNAMES, type AclBinding } from '../api/index.js';
import { differs, objectName, type MenuIndex } from './menu-index.js';
import type { PlanContext } from './plan-context.js';
import type { RenderedCluster } from './rendered-cluster.js';
import type { UserChange } from './plan-schema.js';

/** Users of `users.acl` that appear, go, or change passwords or permissions. All of it is live (ACL LOAD). */
export function diffUsers(base: RenderedCluster, change: RenderedCluster, ctx: PlanContext): UserChange[] {
  const names = [...change.users.keys(), ...[...base.users.keys()].filter((u) => !change.users.has(u))];
  const out: UserChange[] = [];
  for (const username of names) {
    const before = base.users.get(username);
    const after = change.users.get(username);
    const added = after ? [...after.hashes].filter((h) => !before?.hashes.has(h)).length : 0;
    const removed = before ? [...before.hashes].filter((h) => !after?.hashes.has(h)).length : 0;
    const rulesChanged = before !== undefined && after !== undefined && before.rules !== after.rules;
    if (before && after && added === 0 && removed === 0 && !rulesChanged) continue;
    const change_: UserChange['change'] = !before
      ? 'added'
      : !after
        ? 'removed'
        : rulesChanged && (added || removed)
          ? 'passwords and permissions'
          : rulesChanged
            ? 'permissions'
            : 'passwords';
    const side = after ? { cluster: change, menu: ctx.change } : { cluster: base, menu: ctx.base };
    const binding = bindingOf(username, side.cluster, side.menu);
    const editedRoles = (binding?.binding.permissions ?? [])
      .map((p) => p.roleRef)
      .filter((role, i, all) => all.indexOf(role) === i && differs(ctx.base.spec('ValkeyRole', role), ctx.change.spec('ValkeyRole', role)))
      .map((role) => `ValkeyRole ${role}`);
    out.push({
      username,
      level: binding?.level ?? 'system',
      change: change_,
      passwordsAdded: before ? added : 0,
      passwordsRemoved: after ? removed : 0,
      boundBy: binding?.boundBy ?? 'valkey-krm (render config)',
      editedRoles,
    });
  }
  return out;
}

interface Bound {
  level: UserChange['level'];
  boundBy: string;
  binding: AclBinding;
}

/** Where a user is bound: the team's ValkeyCluster, or the config whose acl list won in resolution. */
export function bindingOf(username: string, cluster: RenderedCluster, menu: MenuIndex): Bound | undefined {
  if (RESERVED_USERNAMES.includes(username)) return undefined;
  const team = menu.cluster(cluster.namespace, cluster.name)?.acl?.find((b) => b.username === username);
  if (team) return { level: 'team', boundBy: objectName('ValkeyCluster', cluster.name, cluster.namespace), binding: team };
  const from = cluster.provenance.acl;
  const binding = from === undefined ? undefined : menu.config(from)?.acl?.find((b) => b.username === username);
  return binding && from ? { level: 'platform', boundBy: `ValkeyConfig ${from}`, binding } : undefined;
}
