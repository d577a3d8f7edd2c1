// The Kubernetes side of the controller's integration tests (not kube-world.ts, which adds a real
// controller-manager and kubelet stand-in): a real kube-apiserver with the CRDs and the
// controller's RBAC installed, the objects git would apply (ValkeyClusters, StatefulSets) and
// Pods created through the API with their status (IP, phase) patched the way a kubelet would.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ANNOTATIONS, LABELS, MANAGED_BY, SYSTEM_USERNAMES } from '../../../src/api/index.js';
import { STATEFULSET_LABELS } from '../../../src/controller/cluster/pod-ownership.js';
import type { Pod } from '../../../src/controller/kube/types.js';
import { CONTROLLER_RULES, DEFAULT_USER_LINE, REPLICATION_RULES } from '../../../src/render/acl.js';
import type { ApiServer } from '../apiserver.js';
import { sha256 } from '../hash.js';
import { createNamespaces } from '../namespaces.js';
import { cluster } from '../objects.js';
import { REPO_ROOT as REPO } from '../paths.js';
import { waitFor } from '../process.js';
import { aclForPre9Builds } from '../valkey.js';
import { registerNodes } from '../kubelet/nodes.js';

export const CONTROLLER_PASSWORD = 'controller-password-for-tests';
/** An application user with full key access, to put data in a cluster and read it back. */
export const APP_USER = 'app';
export const APP_PASSWORD = 'app-password-for-tests';
export const REPLICATION_PASSWORD = 'replication-password-for-tests';
export const CONTROLLER_NAMESPACE = 'valkey-system';
/** Leader election with a 2 s lease, so a handover in a test takes about a second: the controller's Lease in CONTROLLER_NAMESPACE. */
export const shortLeaseElection = (identity: string) => ({
  namespace: CONTROLLER_NAMESPACE,
  name: 'valkey-status-sync',
  identity,
  leaseDurationSeconds: 2,
  renewDeadlineMs: 1_500,
  retryPeriodMs: 200,
});
/** The Node createPod binds pods to; prepareWorld registers it, Ready, in zone-a. */
export const POD_NODE = 'node-a';

/** The system users as the renderer writes them, plus an application user (Valkey 9.1.2 loads it as is). */
export function usersAcl(): string {
  return [
    DEFAULT_USER_LINE,
    `user ${SYSTEM_USERNAMES.replication} on #${sha256(REPLICATION_PASSWORD)} resetchannels ${REPLICATION_RULES}`,
    `user ${SYSTEM_USERNAMES.controller} on #${sha256(CONTROLLER_PASSWORD)} resetchannels ${CONTROLLER_RULES}`,
    `user ${APP_USER} on #${sha256(APP_PASSWORD)} resetchannels ~* +@all`,
    '',
  ].join('\n');
}

export interface World {
  api: ApiServer;
  /** A kubeconfig authenticating as the controller's ServiceAccount (deploy/controller/rbac.yaml). */
  controllerKubeconfig: string;
  dir: string;
  aclPath: string;
  /** The same users without `+cluster|syncslots`, for Redis and the pre-9.0 builds (see above). */
  pre9AclPath: string;
  passwordFile: string;
  cleanup(): void;
}

async function kubectl(api: ApiServer, args: string[], input?: string): Promise<string> {
  const r = await api.kubectl(args, input === undefined ? {} : { input });
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} failed (${r.code}):\n${r.stderr}`);
  return r.stdout;
}

/** CRDs from crds/, the controller's namespace, ServiceAccount and RBAC from deploy/controller/. */
/** The namespaces deploy/controller-namespaced/ binds as shipped (its example list). */
export const NAMESPACED_INSTALL_NAMESPACES = ['team-a', 'team-b'] as const;

/**
 * The CRDs and the controller's ServiceAccount and RBAC as shipped: `cluster-wide`
 * (deploy/controller/: namespace, ServiceAccount, rbac.yaml) or `namespaced`
 * (deploy/controller-namespaced/ applied whole with `-k`, its namespaces created first).
 */
export async function prepareWorld(api: ApiServer, o: { install?: 'cluster-wide' | 'namespaced' } = {}): Promise<World> {
  if (o.install === 'namespaced') {
    await kubectl(api, ['apply', '--server-side', '-f', join(REPO, 'crds')]);
    await createNamespaces(api, NAMESPACED_INSTALL_NAMESPACES);
    await kubectl(api, ['apply', '--server-side', '-k', join(REPO, 'deploy/controller-namespaced')]);
  } else {
    const files = [
      join(REPO, 'crds'),
      ...['namespace.yaml', 'serviceaccount.yaml', 'rbac.yaml', 'admission-policy.yaml'].map((f) => join(REPO, 'deploy/controller', f)),
    ];
    await kubectl(api, ['apply', '--server-side', ...files.flatMap((f) => ['-f', f])]);
  }
  await kubectl(api, [
    'wait',
    '--for=condition=Established',
    '--timeout=60s',
    'crd/valkeyclusters.valkey.gomomento.com',
    'crd/valkeyconfigs.valkey.gomomento.com',
    'crd/valkeyimages.valkey.gomomento.com',
  ]);
  // The Node every createPod pod is bound to, Ready (no node lifecycle controller runs here, so it
  // stays so): a pod that does not answer on it is cut off, not lost, unless a test says otherwise.
  await registerNodes(api, [POD_NODE], '127.0.0.1');
  const token = (await kubectl(api, ['create', 'token', 'valkey-status-sync', '-n', CONTROLLER_NAMESPACE, '--duration=2h'])).trim();
  const dir = mkdtempSync(join(tmpdir(), 'valkey-krm-controller-test-'));
  const controllerKubeconfig = join(dir, 'controller.kubeconfig');
  writeFileSync(
    controllerKubeconfig,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      'current-context': 'sa',
      clusters: [{ name: 'harness', cluster: { server: api.url, 'certificate-authority': api.caCertPath } }],
      users: [{ name: 'valkey-status-sync', user: { token } }],
      contexts: [{ name: 'sa', context: { cluster: 'harness', user: 'valkey-status-sync' } }],
    }),
  );
  const aclPath = join(dir, 'users.acl');
  writeFileSync(aclPath, usersAcl());
  // Only for a binary that predates 9.0 (or Redis) where the point is the INFO-based version gate:
  // such a server refuses the rendered file at start-up and would never reach the gate.
  const pre9AclPath = join(dir, 'users-pre9.acl');
  writeFileSync(pre9AclPath, aclForPre9Builds(usersAcl()));
  const passwordFile = join(dir, 'controller-password');
  writeFileSync(passwordFile, `${CONTROLLER_PASSWORD}\n`);
  return {
    api,
    controllerKubeconfig,
    dir,
    aclPath,
    pre9AclPath,
    passwordFile,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

// ---------------------------------------------------------------- API objects

/** Where a SubjectAccessReview asks: a namespace, an object's name, a subresource. */
export interface AccessScope {
  namespace?: string;
  name?: string;
  subresource?: string;
}

/**
 * Whether the controller's ServiceAccount may do `verb` on `resource`: a SubjectAccessReview, what
 * `kubectl auth can-i --as` asks, without a process per question.
 */
export async function controllerMay(
  api: ApiServer,
  verb: string,
  group: string,
  resource: string,
  scope: AccessScope = {},
): Promise<boolean> {
  const review = await apiCall<{ status: { allowed: boolean } }>(api, 'POST', '/apis/authorization.k8s.io/v1/subjectaccessreviews', {
    apiVersion: 'authorization.k8s.io/v1',
    kind: 'SubjectAccessReview',
    spec: {
      user: `system:serviceaccount:${CONTROLLER_NAMESPACE}:valkey-status-sync`,
      groups: ['system:serviceaccounts', `system:serviceaccounts:${CONTROLLER_NAMESPACE}`, 'system:authenticated'],
      resourceAttributes: { verb, group, resource, ...scope },
    },
  });
  return review.status.allowed;
}

export async function apiCall<T>(api: ApiServer, method: string, path: string, body?: unknown, contentType?: string): Promise<T> {
  const res = await api.request(method, path, body, contentType ? { 'Content-Type': contentType } : undefined);
  if (res.status < 200 || res.status > 299) throw new Error(`${method} ${path}: ${res.status} ${res.body}`);
  return JSON.parse(res.body) as T;
}

export interface ClusterShape {
  ns: string;
  name: string;
  shards: number;
  replicasPerShard: number;
  tlsSecret?: string;
  declaredVersion?: string;
}

/** The ValkeyCluster and, as the renderer would, one StatefulSet per shard with its annotations. */
export async function createCluster(api: ApiServer, c: ClusterShape): Promise<void> {
  await apiCall(
    api,
    'POST',
    `/apis/valkey.gomomento.com/v1alpha1/namespaces/${c.ns}/valkeyclusters`,
    cluster(
      c.name,
      { shards: c.shards, replicasPerShard: c.replicasPerShard, ...(c.tlsSecret ? { tls: { secretRef: c.tlsSecret } } : {}) },
      c.ns,
    ),
  );
  for (let s = 0; s < c.shards; s++) await applyStatefulSet(api, c, s);
}

export async function applyStatefulSet(api: ApiServer, c: ClusterShape, shard: number): Promise<void> {
  const labels = {
    [LABELS.name]: 'valkey',
    [LABELS.instance]: c.name,
    [LABELS.managedBy]: MANAGED_BY,
    [LABELS.cluster]: c.name,
    [LABELS.shard]: String(shard),
  };
  const body = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: {
      name: `${c.name}-${shard}`,
      namespace: c.ns,
      labels,
      annotations: {
        [ANNOTATIONS.imageRef]: 'valkey-9-0',
        [ANNOTATIONS.imageVersion]: c.declaredVersion ?? '9.0.1',
        [ANNOTATIONS.shards]: String(c.shards),
        [ANNOTATIONS.replicasPerShard]: String(c.replicasPerShard),
      },
    },
    spec: {
      replicas: 1 + c.replicasPerShard,
      serviceName: c.name,
      podManagementPolicy: 'Parallel',
      updateStrategy: { type: 'OnDelete' },
      selector: { matchLabels: { [LABELS.cluster]: c.name, [LABELS.shard]: String(shard) } },
      template: { metadata: { labels }, spec: { containers: [{ name: 'valkey', image: 'valkey/valkey:9.0.1' }] } },
    },
  };
  await kubectl(api, ['apply', '--server-side', '--force-conflicts', '-f', '-'], JSON.stringify(body));
}

export async function patchClusterSpec(api: ApiServer, ns: string, name: string, spec: Record<string, unknown>): Promise<void> {
  await apiCall(
    api,
    'PATCH',
    `/apis/valkey.gomomento.com/v1alpha1/namespaces/${ns}/valkeyclusters/${name}`,
    { spec },
    'application/merge-patch+json',
  );
}

export interface ClusterObject {
  metadata: { resourceVersion: string; generation: number };
  spec: { shards: number; replicasPerShard: number };
  status?: {
    state?: string;
    message?: string;
    observedGeneration?: number;
    nodes?: { pod: string; shard: number; role: string; nodeId?: string; ip?: string; version?: string; health: string }[];
    conditions?: { type: string; status: string; reason: string; message: string; lastTransitionTime: string }[];
  };
}

export const getCluster = (api: ApiServer, ns: string, name: string) =>
  apiCall<ClusterObject>(api, 'GET', `/apis/valkey.gomomento.com/v1alpha1/namespaces/${ns}/valkeyclusters/${name}`);

/** Polls the ValkeyCluster until `check` holds; on timeout the error shows the last status. */
export async function waitForCluster(
  api: ApiServer,
  ns: string,
  name: string,
  what: string,
  check: (c: ClusterObject) => boolean,
  timeoutMs = 30_000,
): Promise<ClusterObject> {
  const seen: { last?: ClusterObject } = {};
  const reached = async () => {
    seen.last = await getCluster(api, ns, name).catch(() => seen.last);
    return seen.last !== undefined && check(seen.last);
  };
  try {
    await waitFor(`${ns}/${name}: ${what}`, reached, { timeoutMs });
  } catch (e) {
    throw new Error(`${(e as Error).message}; last status:\n${JSON.stringify(seen.last?.status, null, 2)}`);
  }
  return seen.last as ClusterObject;
}

/** The controller's leader-election Lease (valkey-system/valkey-status-sync). */
export const LEASE_PATH = `/apis/coordination.k8s.io/v1/namespaces/${CONTROLLER_NAMESPACE}/leases/valkey-status-sync`;

export const getLease = (api: ApiServer) =>
  apiCall<{ metadata: { resourceVersion: string }; spec: { holderIdentity?: string } & Record<string, unknown> }>(api, 'GET', LEASE_PATH);

// ---------------------------------------------------------------- pods

export interface PodOptions {
  ns: string;
  cluster: string;
  shard: number;
  ordinal: number;
  /** Leave out to create a pod with no IP yet. */
  ip?: string;
  /** The Node it is bound to (default POD_NODE); a test registers any other. */
  node?: string;
}

/**
 * A pod as the StatefulSet controller and the scheduler would make it (no controller-manager runs
 * here): controlled by its shard StatefulSet by UID, with the StatefulSet's pod-name and revision
 * labels, bound to a node. The controller dials only such pods (cluster/pod-ownership.ts).
 */
export async function createPod(api: ApiServer, p: PodOptions): Promise<string> {
  const name = `${p.cluster}-${p.shard}-${p.ordinal}`;
  const setName = `${p.cluster}-${p.shard}`;
  const set = await apiCall<{ metadata: { uid: string } }>(api, 'GET', `/apis/apps/v1/namespaces/${p.ns}/statefulsets/${setName}`);
  const pod = await apiCall<Pod>(api, 'POST', `/api/v1/namespaces/${p.ns}/pods`, {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: p.ns,
      labels: {
        [LABELS.name]: 'valkey',
        [LABELS.instance]: p.cluster,
        [LABELS.managedBy]: MANAGED_BY,
        [LABELS.cluster]: p.cluster,
        [LABELS.shard]: String(p.shard),
        [STATEFULSET_LABELS.podName]: name,
        [STATEFULSET_LABELS.revision]: `${setName}-5d8f7c9b4`,
      },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: setName, uid: set.metadata.uid, controller: true }],
    },
    spec: {
      automountServiceAccountToken: false,
      nodeName: p.node ?? POD_NODE,
      containers: [{ name: 'valkey', image: 'valkey/valkey:9.0.1' }],
    },
  });
  if (p.ip) await setPodRunning(api, p.ns, name, p.ip);
  return pod.metadata.uid as string;
}

/** What a kubelet would report: Running, Ready, with an IP. */
export async function setPodRunning(api: ApiServer, ns: string, name: string, ip: string): Promise<void> {
  await apiCall(
    api,
    'PATCH',
    `/api/v1/namespaces/${ns}/pods/${name}/status`,
    {
      status: { phase: 'Running', podIP: ip, podIPs: [{ ip }], conditions: [{ type: 'Ready', status: 'True' }] },
    },
    'application/merge-patch+json',
  );
}

export async function deletePod(api: ApiServer, ns: string, name: string): Promise<void> {
  // Bound to a node no kubelet runs, so a graceful delete would wait for ever: delete it at once,
  // as `kubectl delete --grace-period=0 --force` does.
  await apiCall(api, 'DELETE', `/api/v1/namespaces/${ns}/pods/${name}?gracePeriodSeconds=0`);
  await waitFor(`pod ${ns}/${name} gone`, async () => (await api.request('GET', `/api/v1/namespaces/${ns}/pods/${name}`)).status === 404, {
    timeoutMs: 10_000,
  });
}
