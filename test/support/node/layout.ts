// Where one real node keeps everything (one directory per world name, so a crashed run's leftovers
// are found by the next start of the same world), and the fixed addresses inside its network
// namespace. Nothing here is reachable from the host's network: the namespace has no link out.
import { join } from 'node:path';

export const NODE_BASE = process.env.VALKEY_KRM_NODE_DIR ?? '/tmp/valkey-krm-node';

/** On `lo` inside the namespace: the kubelet's node IP and the API server's advertised address. */
export const NODE_IP = '10.123.255.1';
export const POD_SUBNET = '10.123.0.0/24';
export const POD_GATEWAY = '10.123.0.1';
/** No kube-proxy: the one ClusterIP that works is the API server's, by a DNAT rule in the namespace. */
export const SERVICE_RANGE = '10.124.0.0/24';
export const KUBERNETES_SERVICE_IP = '10.124.0.1';
export const API_PORT = 6443;
/** Kernel settings the kubelet changes (global, not per namespace): saved before and restored after. */
export const KUBELET_SYSCTLS = ['vm.overcommit_memory', 'vm.panic_on_oom', 'kernel.panic', 'kernel.panic_on_oops'] as const;

/** Where `ip netns add` keeps namespace files; the first one bind-mounts it onto itself (shared). */
export const NETNS_DIR = '/run/netns';
/**
 * Paths the kubelet uses whatever its flags (the device-plugin socket under /var/lib/kubelet, the
 * containers' log symlinks in /var/log/containers): inside the private mount namespace each gets
 * the node's own directory (the value, under the node's directory) bound over it, so the host
 * keeps at most an empty mount point.
 */
export const KUBELET_FIXED_DIRS = { '/var/lib/kubelet': 'var-lib-kubelet', '/var/log/containers': 'var-log-containers' } as const;

/**
 * What a node changes on the host besides sysctls, as it was before the first node: runc makes a
 * `k8s.io` parent cgroup in every hierarchy for the containers' cgroups, `ip netns add` makes
 * /run/netns and mounts it onto itself, and the node makes the mount points of KUBELET_FIXED_DIRS.
 * Teardown removes only what was not there before.
 */
export interface HostBefore {
  cgroupParents: string[];
  /** The KUBELET_FIXED_DIRS that existed. */
  fixedDirsExisted: string[];
  netnsDirExisted: boolean;
  netnsDirMounted: boolean;
}

export interface NodeLayout {
  name: string;
  dir: string;
  /** `ip netns` name; the file is /var/run/netns/<netns>. */
  netns: string;
  netnsPath: string;
  /** The persistent private mount namespace of containerd and the kubelet (a bind-mounted nsfs file). */
  mntnsDir: string;
  mntnsPath: string;
  pids: string;
  logs: string;
  pki: string;
  containerdSocket: string;
  /** runc's state root for this containerd only: after a crash it lists exactly this node's containers. */
  runcRoot: string;
  cniNetwork: string;
  cniIpam: string;
  /** The host's pod netns files (cni-*) before this node started: the others are this node's. */
  netnsBefore: string;
  /** Kernel settings as they were before the first node started (shared by every node on the host). */
  sysctlsOrig: string;
  /** The host as it was before the first node started (HostBefore as JSON, shared like sysctlsOrig). */
  hostOrig: string;
  /** `kubectl proxy` inside the namespace, on a Unix socket the host side can reach. */
  proxySocket: string;
}

export function layoutOf(name: string): NodeLayout {
  if (!/^[a-z][a-z0-9-]{0,15}$/.test(name)) throw new Error(`real node name ${JSON.stringify(name)}: use 1-16 of [a-z0-9-]`);
  const dir = join(NODE_BASE, name);
  const netns = `vkn-${name}`;
  return {
    name,
    dir,
    netns,
    netnsPath: `/var/run/netns/${netns}`,
    mntnsDir: join(dir, 'ns'),
    mntnsPath: join(dir, 'ns', 'mnt'),
    pids: join(dir, 'pids'),
    logs: join(dir, 'logs'),
    pki: join(dir, 'pki'),
    containerdSocket: join(dir, 'containerd', 'containerd.sock'),
    runcRoot: join(dir, 'runc'),
    cniNetwork: `vkn-${name}`,
    cniIpam: join(dir, 'cni-ipam'),
    netnsBefore: join(dir, 'netns-before'),
    sysctlsOrig: join(NODE_BASE, 'sysctl.orig'),
    hostOrig: join(NODE_BASE, 'host.orig.json'),
    proxySocket: join(dir, 'api.sock'),
  };
}

/** A command in the node's network namespace only (the host's mounts: /sys/fs/cgroup stays as it is). */
export const inNetns = (l: NodeLayout, cmd: string, args: readonly string[]): [string, string[]] => [
  'nsenter',
  [`--net=${l.netnsPath}`, '--', cmd, ...args],
];

/** A command in the network namespace and the node's private mount namespace (containerd, kubelet). */
export const inNode = (l: NodeLayout, cmd: string, args: readonly string[]): [string, string[]] => [
  'nsenter',
  [`--net=${l.netnsPath}`, `--mount=${l.mntnsPath}`, '--', cmd, ...args],
];
