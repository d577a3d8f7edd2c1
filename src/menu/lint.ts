import { valkeyMemoryBytes } from '../api/contract/valkey-memory.js';
import { valkeyRef, quantityValue, warning, type Problem, type ValkeyImage, type ValkeyRole } from '../api/index.js';
import { checkRoleNames } from './check-role.js';
import type { Menu } from './menu.js';
import type { MergedChain } from './resolve.js';

/**
 * Sizing guidance: keep maxmemory at or below this share of the container memory limit. The rest
 * is headroom for client and replication buffers, the replication backlog and copy-on-write
 * during forks; a pod that reaches its limit is OOM-killed, not slowed down.
 */
export const MAXMEMORY_SHARE_OF_LIMIT = 0.75;

const FLOATING_TAGS = /^(latest|stable|edge|main|master|unstable|nightly|alpine|bookworm|trixie)$/;

export function lintImage(image: ValkeyImage): Problem[] {
  const ref = valkeyRef('ValkeyImage', image.metadata.name);
  const { tag, version } = image.spec;
  const who = `ValkeyImage ${image.metadata.name}`;
  if (tag.includes('@sha256:')) return [];
  const tagVersion = /(?:^|[^0-9.])v?([0-9]+\.[0-9]+\.[0-9]+)(?![0-9.])/.exec(tag)?.[1];
  if (tagVersion === undefined) {
    const kind = FLOATING_TAGS.test(tag) ? `"${tag}" is a mutable tag` : `tag "${tag}" does not pin a MAJOR.MINOR.PATCH release`;
    return [
      warning(
        `${who}: spec.tag: ${kind}: what runs can change on the next pod replacement, silently and possibly below the version floor; register an exact release tag such as "${version}"`,
        ref,
        'spec.tag',
      ),
    ];
  }
  if (tagVersion !== version) {
    return [
      warning(
        `${who}: spec.tag: the tag says ${tagVersion} but spec.version declares ${version}; fix whichever is wrong (the controller reports the version that really runs)`,
        ref,
        'spec.tag',
      ),
    ];
  }
  return [];
}

export function lintRole(role: ValkeyRole): Problem[] {
  const ref = valkeyRef('ValkeyRole', role.metadata.name);
  const who = `ValkeyRole ${role.metadata.name}`;
  const problems: Problem[] = [];
  const categories = role.spec.categories ?? [];
  if (categories.length === 0 && (role.spec.commands ?? []).length === 0) {
    problems.push(
      warning(
        `${who}: spec: grants nothing (no categories and no commands); add categories such as read or commands such as get`,
        ref,
        'spec',
      ),
    );
  }
  problems.push(...checkRoleNames(role));
  return problems;
}

/** Warnings about a resolved config's sizing, attached to the config that set the field. */
export function lintResolvedConfig(resolved: MergedChain & { name: string }, _menu: Menu): Problem[] {
  const ref = valkeyRef('ValkeyConfig', resolved.name);
  const who = `ValkeyConfig ${resolved.name}`;
  const problems: Problem[] = [];
  const { cpu, memory } = resolved.resources;
  if (memory === undefined) {
    problems.push(
      warning(
        `${who}: spec.resources.memory: no config in the chain sets it, so pods get no memory request or limit and may be evicted or starve their node; set it here or on a base`,
        ref,
        'spec.resources.memory',
      ),
    );
  }
  if (cpu === undefined) {
    problems.push(
      warning(
        `${who}: spec.resources.cpu: no config in the chain sets it, so pods get no CPU request or limit; set it here or on a base`,
        ref,
        'spec.resources.cpu',
      ),
    );
  }
  const maxmemory = lookup(resolved.valkey, 'maxmemory');
  if (maxmemory === undefined || valkeyMemoryBytes(maxmemory.value) === 0) {
    if (memory !== undefined) {
      problems.push(
        warning(
          `${who}: spec.valkey.maxmemory: not set, so Valkey grows until the container reaches its memory limit and is OOM-killed; set maxmemory to at most ${MAXMEMORY_SHARE_OF_LIMIT * 100}% of resources.memory`,
          ref,
          'spec.valkey.maxmemory',
        ),
      );
    }
    return problems;
  }
  const limit = memory === undefined ? undefined : quantityValue(memory);
  const bytes = valkeyMemoryBytes(maxmemory.value);
  const from = resolved.valkeyFrom[maxmemory.key] ?? resolved.name;
  if (bytes === undefined) {
    problems.push(
      warning(
        `${who}: spec.valkey.maxmemory: "${maxmemory.value}" (from ValkeyConfig ${from}) is not a size Valkey understands, such as 1500mb or 12gb`,
        ref,
        `spec.valkey.${maxmemory.key}`,
      ),
    );
  } else if (limit !== undefined && bytes > limit * MAXMEMORY_SHARE_OF_LIMIT) {
    const pct = Math.round((bytes / limit) * 100);
    problems.push(
      warning(
        `${who}: spec.valkey.maxmemory: ${maxmemory.value} (from ValkeyConfig ${from}) is ${pct}% of the ${memory} memory limit; leave at least ${100 - MAXMEMORY_SHARE_OF_LIMIT * 100}% headroom for buffers, the replication backlog and forks, or the pod is OOM-killed`,
        ref,
        `spec.valkey.${maxmemory.key}`,
      ),
    );
  }
  return problems;
}

/** Valkey directive names are case-insensitive. */
function lookup(map: Record<string, string>, key: string): { key: string; value: string } | undefined {
  for (const [k, value] of Object.entries(map)) if (k.toLowerCase() === key) return { key: k, value };
  return undefined;
}
