// A valkey-krm package as a platform team writes one (files in a directory: a ValkeyImage, a small
// ValkeyConfig that fits a 2-core node, a role, one ValkeyCluster, the render config), rendered by
// the built render-valkey exactly as a user runs it. Tests change the package's inputs and render
// again; what gets applied is always render-valkey's output, byte for byte.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { sha256 } from '../hash.js';
import { API } from '../objects.js';
import { renderPlain } from '../render.js';

export interface PackageInputs {
  namespace: string;
  cluster: string;
  /** ValkeyImage spec.tag (the repository is valkey/valkey) and spec.version. */
  image: { tag: string; version: string };
  shards: number;
  replicasPerShard: number;
  maxmemory: string;
  /** The application users: name and passwords (their SHA-256 go into the package). */
  users: readonly { username: string; passwords: readonly string[] }[];
  passwords: { replication: string; controller: string };
  /** ValkeyCluster spec.placement, when the case sets one. */
  placement?: Record<string, unknown>;
  /** ValkeyCluster spec.tls.secretRef, for a TLS cluster (the suite creates the Secret). */
  tlsSecret?: string;
  /**
   * The render config's nodeSpread; `bestEffort` unless a case sets one (see below). `shipped`
   * leaves it out, so the render's own default applies (the multi-node suites: the shipped defaults).
   */
  nodeSpread?: 'required' | 'bestEffort' | 'shipped';
}

export interface RenderedPackage {
  dir: string;
  /** render-valkey's stdout. */
  yaml: string;
}

const doc = (kind: string, name: string, spec: unknown, extra: Record<string, unknown> = {}) => ({
  apiVersion: API,
  kind,
  metadata: { name, ...extra },
  spec,
});

/** Writes the package files into a fresh directory and renders them. */
export async function renderPackage(p: PackageInputs, dir?: string): Promise<RenderedPackage> {
  const d = dir ?? (await mkdtemp(join(tmpdir(), 'valkey-krm-node-pkg-')));
  await mkdir(d, { recursive: true });
  const files: Record<string, unknown> = {
    'images.yaml': doc('ValkeyImage', 'valkey', { repository: 'valkey/valkey', tag: p.image.tag, version: p.image.version }),
    'configs.yaml': doc('ValkeyConfig', 'small', {
      imageRef: 'valkey',
      // Requests are limits as rendered (CFS quota): at 100m a new primary, importing slots while
      // its replica synced, missed the controller's 3 s command timeout again and again on a
      // loaded machine. 200m still fits 4 shards of 2 pods and the controller on 2 cores.
      resources: { cpu: '200m', memory: '256Mi' },
      valkey: { maxmemory: p.maxmemory, 'maxmemory-policy': 'noeviction' },
    }),
    'roles.yaml': doc('ValkeyRole', 'read-write', {
      categories: [
        { name: 'read', access: 'allow' },
        { name: 'write', access: 'allow' },
        { name: 'dangerous', access: 'deny' },
      ],
    }),
    'clusters.yaml': doc(
      'ValkeyCluster',
      p.cluster,
      {
        configRef: 'small',
        shards: p.shards,
        replicasPerShard: p.replicasPerShard,
        ...(p.placement ? { placement: p.placement } : {}),
        ...(p.tlsSecret ? { tls: { secretRef: p.tlsSecret } } : {}),
        acl: p.users.map((u) => ({
          username: u.username,
          passwordHashes: u.passwords.map(sha256),
          permissions: [{ roleRef: 'read-write', keys: [{ pattern: 'app:*', access: 'readwrite' }] }],
        })),
      },
      { namespace: p.namespace },
    ),
    'render-config.yaml': doc(
      'ValkeyRenderConfig',
      'render',
      {
        clusterDomain: 'cluster.local',
        // One Node: the shipped `required` keeps a shard's two pods off one node, so its replica
        // would stay Pending. `bestEffort` is the render config's setting for exactly this (fewer
        // nodes than pods per shard); the rest of the package keeps the shipped defaults.
        ...(p.nodeSpread === 'shipped' ? {} : { nodeSpread: p.nodeSpread ?? 'bestEffort' }),
        systemUsers: {
          replication: { passwordHash: sha256(p.passwords.replication), secretName: 'valkey-replication' },
          controller: { passwordHash: sha256(p.passwords.controller), secretName: 'valkey-controller' },
        },
      },
      { annotations: { 'config.kubernetes.io/local-config': 'true' } },
    ),
  };
  for (const [name, content] of Object.entries(files)) await writeFile(join(d, name), stringify(content));
  const r = await renderPlain([d]);
  if (r.code !== 0) throw new Error(`render-valkey ${d} exited ${r.code}:\n${r.stderr}`);
  return { dir: d, yaml: r.stdout };
}
