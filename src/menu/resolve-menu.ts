import {
  RESERVED_USERNAMES,
  causedBy,
  compareStrings,
  describeRef,
  error,
  valkeyRef,
  warning,
  type AclBinding,
  type ObjectRef,
  type Problem,
  type ValkeyCluster,
} from '../api/index.js';
import { invalidKey, type Menu } from './menu.js';
import {
  MAX_CHAIN_LENGTH,
  describeFailure,
  failingConfig,
  formatChain,
  mergeAllChains,
  type ChainResult,
  type MergedChain,
} from './resolve.js';
import { NameIndex } from './suggest.js';
import { lintImage, lintRole, lintResolvedConfig } from './lint.js';
import { checkSettingsForImage, checkValkeySettings } from './check-settings.js';

/** A config whose whole chain resolved, with its image joined verbatim. */
export interface ResolvedConfig extends MergedChain {
  name: string;
  imageRef: string;
  imageFrom: string;
  /** `repository:tag`, verbatim. */
  image: string;
  imageTag: string;
  /** The ValkeyImage's declared version. */
  imageVersion: string;
}

export interface ResolvedCluster {
  cluster: ValkeyCluster;
  config: ResolvedConfig;
}

export interface ResolvedMenu {
  configs: ReadonlyMap<string, ResolvedConfig>;
  clusters: ResolvedCluster[];
  problems: Problem[];
}

const configRef = (name: string) => valkeyRef('ValkeyConfig', name);
const clusterRef = (c: ValkeyCluster) => valkeyRef('ValkeyCluster', c.metadata.name, c.metadata.namespace);
const clusterName = (c: ValkeyCluster) => `${c.metadata.namespace}/${c.metadata.name}`;

/**
 * Resolves every config chain, joins images, and checks every cross-object reference.
 * Pure: same menu in, same result out. Problems are collected, never thrown.
 */
export function resolveMenu(menu: Menu): ResolvedMenu {
  const problems: Problem[] = [];
  const names = nameIndexes(menu);
  const chains = mergeAllChains(menu.configs, undefined, (name) => menu.invalid.has(invalidKey('ValkeyConfig', name)));
  const usersOf = clustersByConfig(menu.clusters);

  reportChainFailures(chains, names, problems);
  const configs = attachImages(menu, chains, usersOf, names, problems);

  /** Configs whose own ACL bindings are broken: a cluster that takes its users from one is not rendered. */
  const brokenAcl = new Set<string>();
  for (const [name, config] of menu.configs)
    if (!checkBindings(config.spec.acl, menu, names, configRef(name), 'spec.acl', problems)) brokenAcl.add(name);
  for (const config of menu.configs.values()) problems.push(...checkValkeySettings(config));
  for (const role of menu.roles.values()) problems.push(...lintRole(role));
  for (const image of menu.images.values()) problems.push(...lintImage(image));
  for (const resolved of configs.values()) problems.push(...lintResolvedConfig(resolved, menu), ...checkSettingsForImage(resolved));

  const clusters: ResolvedCluster[] = [];
  for (const cluster of menu.clusters) {
    const resolved = resolveCluster(cluster, menu, names, chains, configs, brokenAcl, problems);
    if (resolved) clusters.push(resolved);
  }
  return { configs, clusters, problems };
}

/** Each kind's names, indexed once for the did-you-mean of every dangling reference. */
interface NameIndexes {
  configs: NameIndex;
  images: NameIndex;
  roles: NameIndex;
}

function nameIndexes(menu: Menu): NameIndexes {
  return {
    configs: new NameIndex(menu.configs.keys()),
    images: new NameIndex(menu.images.keys()),
    roles: new NameIndex(menu.roles.keys()),
  };
}

function clustersByConfig(clusters: readonly ValkeyCluster[]): Map<string, ValkeyCluster[]> {
  const byConfig = new Map<string, ValkeyCluster[]>();
  for (const c of clusters) {
    const list = byConfig.get(c.spec.configRef) ?? [];
    list.push(c);
    byConfig.set(c.spec.configRef, list);
  }
  return byConfig;
}

/** Root causes only: configs that fail because their base failed are reported through clusters. */
function reportChainFailures(chains: Map<string, ChainResult>, names: NameIndexes, problems: Problem[]): void {
  for (const [name, result] of chains) {
    if (result.ok) continue;
    const f = result.failure;
    if (f.reason === 'missing-base' && f.invalid) {
      // The base has its own errors; saying it does not exist would send people the wrong way.
      problems.push(
        causedBy(
          error(
            `ValkeyConfig ${name}: spec.baseRef: cannot be resolved, caused by its base ValkeyConfig ${f.missing}, which is invalid; fix the errors reported on ${f.missing} first`,
            configRef(name),
            'spec.baseRef',
          ),
          configRef(f.missing),
        ),
      );
    } else if (f.reason === 'missing-base') {
      const hint = names.configs.suggest(f.missing, 'ValkeyConfig');
      problems.push(
        error(
          `ValkeyConfig ${name}: spec.baseRef: ValkeyConfig "${f.missing}" does not exist (chain walked: ${formatChain(f.chain)}); create it or point baseRef at an existing config (${hint})`,
          configRef(name),
          'spec.baseRef',
        ),
      );
    } else if (f.reason === 'cycle') {
      problems.push(
        error(
          `ValkeyConfig ${name}: spec.baseRef: the chain is a cycle: ${formatChain(f.cycle)}; one config in it must have no baseRef`,
          configRef(name),
          'spec.baseRef',
        ),
      );
    } else if (f.reason === 'too-long') {
      problems.push(
        error(
          `ValkeyConfig ${name}: spec.baseRef: the chain ${formatChain(f.chain)} is longer than the ${MAX_CHAIN_LENGTH} configs allowed (this config counts as one); flatten the menu so every chain has at most ${MAX_CHAIN_LENGTH} configs`,
          configRef(name),
          'spec.baseRef',
        ),
      );
    }
  }
}

function attachImages(
  menu: Menu,
  chains: Map<string, ChainResult>,
  usersOf: Map<string, ValkeyCluster[]>,
  names: NameIndexes,
  problems: Problem[],
): Map<string, ResolvedConfig> {
  const resolved = new Map<string, ResolvedConfig>();
  const hasChildren = new Set<string>();
  for (const c of menu.configs.values()) if (c.spec.baseRef) hasChildren.add(c.spec.baseRef);
  // A missing image → the configs that set it and every config that inherits it.
  const missing = new Map<string, { setters: Set<string>; dependents: string[] }>();

  for (const [name, result] of chains) {
    if (!result.ok) continue;
    const chain = result.value;
    if (chain.imageRef === undefined || chain.imageFrom === undefined) {
      // A base without an image is fine as long as nothing runs it directly.
      if (!hasChildren.has(name) && !usersOf.has(name)) {
        problems.push(
          warning(
            `ValkeyConfig ${name}: no config in its chain (${formatChain(chain.chain)}) sets spec.imageRef, so no cluster can use it; set imageRef here or on a base`,
            configRef(name),
            'spec.imageRef',
          ),
        );
      }
      continue;
    }
    const image = menu.images.get(chain.imageRef);
    if (!image) {
      const entry = missing.get(chain.imageRef) ?? { setters: new Set<string>(), dependents: [] };
      entry.setters.add(chain.imageFrom);
      entry.dependents.push(name);
      missing.set(chain.imageRef, entry);
      continue;
    }
    resolved.set(name, {
      ...chain,
      name,
      imageRef: chain.imageRef,
      imageFrom: chain.imageFrom,
      image: `${image.spec.repository}:${image.spec.tag}`,
      imageTag: image.spec.tag,
      imageVersion: image.spec.version,
    });
  }

  for (const [image, { setters, dependents }] of missing) {
    if (menu.invalid.has(invalidKey('ValkeyImage', image))) continue; // its own errors say what is wrong
    // One message per config that sets the image: the lists are bounded, or n setters of one
    // missing image would write n messages of n names each.
    const configsList = `${dependents.length === 1 ? 'ValkeyConfig that depends' : 'ValkeyConfigs that depend'} on it: ${boundedList(dependents.sort(compareStrings))}`;
    const clusters = dependents.flatMap((d) => (usersOf.get(d) ?? []).map(clusterName)).sort(compareStrings);
    const clusterText = clusters.length
      ? `${clusters.length === 1 ? 'ValkeyCluster that depends' : 'ValkeyClusters that depend'} on it: ${boundedList(clusters)}`
      : 'no ValkeyCluster uses it yet';
    const hint = names.images.suggest(image, 'ValkeyImage');
    for (const from of setters) {
      problems.push(
        error(
          `ValkeyConfig ${from}: spec.imageRef: ValkeyImage "${image}" does not exist, so it is not on the allowlist. ${configsList}; ${clusterText}. Register the image with a ValkeyImage named "${image}" or point imageRef at an allowlisted one (${hint})`,
          configRef(from),
          'spec.imageRef',
        ),
      );
    }
  }
  return resolved;
}

function resolveCluster(
  cluster: ValkeyCluster,
  menu: Menu,
  names: NameIndexes,
  chains: Map<string, ChainResult>,
  configs: Map<string, ResolvedConfig>,
  brokenAcl: ReadonlySet<string>,
  problems: Problem[],
): ResolvedCluster | undefined {
  const ref = clusterRef(cluster);
  const who = `ValkeyCluster ${clusterName(cluster)}`;
  const name = cluster.spec.configRef;
  let ok = checkBindings(cluster.spec.acl, menu, names, ref, 'spec.acl', problems);
  const chain = chains.get(name);
  if (!chain) {
    problems.push(
      menu.invalid.has(invalidKey('ValkeyConfig', name))
        ? causedBy(
            error(
              `${who}: spec.configRef: cannot be rendered, caused by ValkeyConfig ${name}, which is invalid; fix the errors reported on ${name} first`,
              ref,
              'spec.configRef',
            ),
            configRef(name),
          )
        : error(
            `${who}: spec.configRef: ValkeyConfig "${name}" does not exist; pick a config from the menu (${names.configs.suggest(name, 'ValkeyConfig')})`,
            ref,
            'spec.configRef',
          ),
    );
    return undefined;
  }
  if (!chain.ok) {
    const root = failingConfig(chain.failure);
    problems.push(
      causedBy(
        error(
          `${who}: spec.configRef: ValkeyConfig "${name}" cannot be resolved, caused by ValkeyConfig ${root} (spec.baseRef): ${describeFailure(chain.failure)}`,
          ref,
          'spec.configRef',
        ),
        configRef(root),
      ),
    );
    return undefined;
  }
  const config = configs.get(name);
  if (!config) {
    const { imageRef, imageFrom } = chain.value;
    const unresolved = `${who}: spec.configRef: ValkeyConfig "${name}" cannot be resolved`;
    if (imageRef === undefined || imageFrom === undefined) {
      const why = `no config in its chain (${formatChain(chain.value.chain)}) sets spec.imageRef; the platform team must set one`;
      problems.push(error(`${unresolved}: ${why}`, ref, 'spec.configRef'));
    } else if (menu.invalid.has(invalidKey('ValkeyImage', imageRef))) {
      const message = `${unresolved}, caused by its image: ValkeyImage ${imageRef} (the imageRef of ValkeyConfig ${imageFrom}) is invalid; fix the errors reported on ValkeyImage ${imageRef} first`;
      problems.push(causedBy(error(message, ref, 'spec.configRef'), valkeyRef('ValkeyImage', imageRef)));
    } else {
      const message = `${unresolved}, caused by its image: ValkeyImage "${imageRef}" (the imageRef of ValkeyConfig ${imageFrom}) does not exist; see the error reported on ValkeyConfig ${imageFrom}`;
      problems.push(causedBy(error(message, ref, 'spec.configRef'), configRef(imageFrom)));
    }
    return undefined;
  }
  if (config.aclFrom !== undefined && brokenAcl.has(config.aclFrom)) {
    // Said once per cluster: when its own bindings are broken too, those errors say enough.
    if (ok)
      problems.push(
        causedBy(
          error(
            `${who}: spec.configRef: cannot be rendered, caused by the ACL bindings of ValkeyConfig ${config.aclFrom} (spec.acl), which are invalid; fix the errors reported on ${config.aclFrom} first`,
            ref,
            'spec.configRef',
          ),
          configRef(config.aclFrom),
        ),
      );
    return undefined;
  }
  const platformUsers = new Set(config.acl.map((b) => b.username));
  (cluster.spec.acl ?? []).forEach((binding, i) => {
    if (platformUsers.has(binding.username)) {
      ok = false;
      problems.push(
        error(
          `${who}: spec.acl[${i}].username: user "${binding.username}" is already defined by the platform in ValkeyConfig ${config.aclFrom} (spec.acl); a team cannot redefine a platform user, so choose another username`,
          ref,
          `spec.acl[${i}].username`,
        ),
      );
    }
  });
  return ok ? { cluster, config } : undefined;
}

/** Role references, reserved and repeated usernames within one binding list. */
function checkBindings(
  bindings: readonly AclBinding[] | undefined,
  menu: Menu,
  names: NameIndexes,
  ref: ObjectRef,
  path: string,
  problems: Problem[],
): boolean {
  if (!bindings) return true;
  const before = problems.length;
  const who = describeRef(ref);
  const seen = new Set<string>();
  bindings.forEach((binding, i) => {
    const field = `${path}[${i}].username`;
    if (RESERVED_USERNAMES.includes(binding.username)) {
      problems.push(
        error(
          `${who}: ${field}: "${binding.username}" is reserved by valkey-krm (${RESERVED_USERNAMES.join(', ')}); choose another username`,
          ref,
          field,
        ),
      );
    } else if (seen.has(binding.username)) {
      problems.push(error(`${who}: ${field}: user "${binding.username}" is bound twice in this list; merge the two bindings`, ref, field));
    }
    seen.add(binding.username);
    binding.permissions.forEach((perm, j) => {
      if (!menu.roles.has(perm.roleRef)) {
        const f = `${path}[${i}].permissions[${j}].roleRef`;
        problems.push(
          menu.invalid.has(invalidKey('ValkeyRole', perm.roleRef))
            ? causedBy(
                error(`${who}: ${f}: caused by ValkeyRole ${perm.roleRef}, which is invalid; fix the errors reported on it first`, ref, f),
                valkeyRef('ValkeyRole', perm.roleRef),
              )
            : error(
                `${who}: ${f}: ValkeyRole "${perm.roleRef}" does not exist; create it or use an existing role (${names.roles.suggest(perm.roleRef, 'ValkeyRole')})`,
                ref,
                f,
              ),
        );
      }
    });
  });
  return problems.length === before;
}

/** At most this many names in one message; the rest are counted. */
export const MAX_LISTED = 10;

/** "a, b, c", or the first MAX_LISTED and "and N more". */
export function boundedList(names: readonly string[]): string {
  const shown = names.slice(0, MAX_LISTED).join(', ');
  return names.length > MAX_LISTED ? `${shown} and ${names.length - MAX_LISTED} more` : shown;
}
