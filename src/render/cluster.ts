import {
  controllerPasswordHashes,
  error,
  info,
  securitySettingReason,
  valkeyRef,
  warning,
  type Problem,
  type RenderConfig,
  type ValkeyRole,
} from '../api/index.js';
import { canonicalSettingName } from '../api/valkey-table.js';
import type { ResolvedCluster } from '../menu/resolve-menu.js';
import type { KubeObject } from './object.js';
import { renderValkeyConf } from './settings.js';
import { aclRevisionLine } from '../api/contract/users-acl.js';
import { renderUsersAcl } from './acl.js';
import { configMapSizeProblem, sha256 } from './configmap.js';
import { renderProbeScript } from './probes.js';
import { renderShardPodTemplate } from './statefulset.js';
import { buildObjects, type ObjectParts } from './cluster-objects.js';
import { clusterText, templateRestartHash, type ClusterText, type TextTemplates } from './cluster-text.js';
import type { PreviousCluster } from './previous.js';
import { liveRevision, restartHash, type ClusterRevisions } from './revisions.js';
import { primaryPromiseFindings } from './primary-promise.js';
import { allowedDataLossRoll, rolloutFindings } from './rollout-warnings.js';
import { shapeFindings } from './shape-checks.js';

export interface ClusterRender {
  /**
   * The client Certificates (spec.tls.clientCertificates), ConfigMap, Service, then each shard's
   * StatefulSet, then each shard's PodDisruptionBudget, then the NetworkPolicy (unless switched
   * off), then the connection ConfigMap.
   */
  objects: KubeObject[];
  problems: Problem[];
  /** The shape checks' warnings (shape-checks.ts): what plan reports as a risk of this cluster when a change brings one. */
  shapeWarnings?: string[];
  /** On the text path (cluster-text.ts), instead of `objects`: the cluster's template and values. */
  text?: ClusterText;
}

/**
 * One resolved cluster → its objects. Pure and deterministic. `previous` is what the renderer's
 * own earlier output for this cluster says, when the input has it (a kpt re-render).
 */
export function renderCluster(
  { cluster, config }: ResolvedCluster,
  roles: ReadonlyMap<string, ValkeyRole>,
  render: RenderConfig,
  previous?: PreviousCluster,
  options: { text?: TextTemplates } = {},
): ClusterRender {
  const name = cluster.metadata.name;
  const namespace = cluster.metadata.namespace as string;
  const tls = cluster.spec.tls !== undefined;
  const header = [
    `Rendered by valkey-krm for ValkeyCluster ${namespace}/${name}.`,
    // ASCII only: the file stays plain ASCII, and so does a render that holds nothing else (it is
    // read back on every kpt re-render, and ASCII text reads several times faster than UTF-8).
    `Config chain: ${config.chain.join(' -> ')}; image ${config.image} (ValkeyImage ${config.imageRef}, version ${config.imageVersion}).`,
  ];
  const conf = renderValkeyConf(header, config.valkey, tls, config.imageVersion);
  // Settings that change who can connect are errors of the config (menu/check-settings.ts), not drops.
  const dropped = conf.dropped.filter((key) => securitySettingReason(canonicalSettingName(key)) === undefined);
  const problems: Problem[] = dropped.map((key) => {
    const from = config.valkeyFrom[key] ?? config.name;
    return info(
      `ValkeyConfig ${from}: spec.valkey.${key}: dropped, because valkey-krm sets ${key} itself (cluster mode, ports, paths, replication identity and access are managed); remove it from the config`,
      valkeyRef('ValkeyConfig', from),
      `spec.valkey.${key}`,
    );
  });
  const controllerHashes = controllerPasswordHashes(render, namespace);
  if (controllerHashes.length === 0) {
    return {
      objects: [],
      problems: [
        error(
          `ValkeyCluster ${namespace}/${name}: the render config has no controller password hash for namespace ${namespace}: add spec.systemUsers.controller.namespaces.${namespace} (docs/security.md shows how to derive it from the controller key)`,
          valkeyRef('ValkeyCluster', name, namespace),
        ),
      ],
    };
  }
  const clients = cluster.spec.tls?.clientCertificates;
  const aclUsers = [...config.acl, ...(cluster.spec.acl ?? [])].map((b) => b.username);
  const unknownClients = (clients?.users ?? []).filter((u) => !aclUsers.includes(u));
  if (unknownClients.length > 0) {
    return {
      objects: [],
      problems: [
        ...problems,
        error(
          `ValkeyCluster ${namespace}/${name}: spec.tls.clientCertificates.users: ${unknownClients.join(', ')} ${unknownClients.length === 1 ? 'is not an ACL user' : 'are not ACL users'} of this cluster (its spec.acl or config chain ${config.chain.join(' -> ')} lists ${aclUsers.length ? aclUsers.join(', ') : 'none'}): a certificate gets a client past the handshake only to log in as a user, so add the user to spec.acl or remove it here`,
          valkeyRef('ValkeyCluster', name, namespace),
          'spec.tls.clientCertificates.users',
        ),
      ],
    };
  }
  const aclBody = renderUsersAcl(config.acl, cluster.spec.acl ?? [], roles, {
    replication: render.systemUsers.replication.passwordHash,
    controller: controllerHashes,
  });
  const aclRevision = sha256(aclBody);
  const acl = aclBody + aclRevisionLine(aclRevision);
  const shape = shapeFindings(cluster, config);
  const allowDataLossRoll = allowedDataLossRoll(cluster);
  const files = { 'valkey.conf': conf.text, 'users.acl': acl, 'probe.sh': renderProbeScript(tls) };
  const parts: ObjectParts = {
    files,
    users: aclUsers,
    ...(allowDataLossRoll !== undefined ? { allowDataLossRoll } : {}),
  };
  // The text path (cluster-text.ts): the objects of every cluster alike but for its names, hashes
  // and files are built and written once, and this cluster's values are written into that text.
  const template = options.text?.templateFor(cluster, config, render, parts);
  // Shard 0's pod template is hashed, then becomes shard 0's (the hash is added to a copy of its annotations).
  const shardZeroTemplate = template ? undefined : renderShardPodTemplate({ cluster, config, render, shard: 0 });
  const revisions: ClusterRevisions = {
    restart: template ? templateRestartHash(template, conf.restart, name, namespace) : restartHash(conf.restart, shardZeroTemplate),
    live: liveRevision(conf.live, acl),
    acl: aclRevision,
  };
  problems.push(...rolloutFindings(cluster, revisions.restart, previous).problems, ...primaryPromiseFindings(cluster), ...shape);
  if (render.nodeSpread === 'bestEffort' && cluster.spec.replicasPerShard > 0) {
    problems.push(
      warning(
        `ValkeyCluster ${namespace}/${name}: spec.replicasPerShard: the render config sets nodeSpread: bestEffort, so a shard's primary and its replicas may be scheduled on one node; losing that node loses the shard's data (emptyDir) and takes its slots offline. Meant for small dev clusters with fewer nodes than pods per shard; remove nodeSpread (default required) anywhere else`,
        valkeyRef('ValkeyCluster', name, namespace),
        'spec.replicasPerShard',
      ),
    );
  }
  const tooLarge = configMapSizeProblem(name, namespace, files);
  if (tooLarge) return { objects: [], problems: [...problems, tooLarge] };
  const shapeWarnings = shape.filter((p) => p.severity === 'warning').map((p) => p.message);
  const warned = shapeWarnings.length ? { shapeWarnings } : {};
  if (template) return { objects: [], text: clusterText(template, name, namespace, revisions, parts), problems, ...warned };
  return { objects: buildObjects(cluster, config, render, parts, revisions, shardZeroTemplate), problems, ...warned };
}
