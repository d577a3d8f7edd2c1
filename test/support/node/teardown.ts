// Teardown of a real node from what it left on disk, so it works after a crash as well as after a
// clean run: startRealNode runs it before starting, and stop() runs it at the end.
//
//   processes   by PID file (each checked to still be ours: its command line names the node's
//               directory), the kubelet first so it restarts nothing; every container through this
//               node's containerd; after a crash, runc's own state root (used by this containerd
//               only) lists the containers that outlived it, and `runc delete -f` kills them and
//               removes their cgroups; shims are found by this containerd's socket path
//   mounts      containerd's and the kubelet's lived only in the private mount namespace, which goes
//               with its nsfs bind mount; anything that leaked under the directory is unmounted
//   netns       the node's namespace, and the pod namespace files its containerd added
//   cgroups     the containers' (by id) and any the kubelet made for this node
//   sysctls     the values saved before the first node started
import { existsSync, readdirSync, readFileSync, readlinkSync, rmdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { run } from '../exec.js';
import { KUBELET_FIXED_DIRS, KUBELET_SYSCTLS, NETNS_DIR, NODE_BASE, type HostBefore, type NodeLayout } from './layout.js';

/** Order matters: extras and the kubelet before containers; containerd before the control plane. */
const STOP_ORDER = ['kubelet', 'containerd', 'kube-scheduler', 'kube-controller-manager', 'kube-apiserver', 'etcd'] as const;

const sh = (cmd: string, args: readonly string[]) => run(cmd, args, { timeoutMs: 60_000 });

const cmdlineOf = (pid: number): string | undefined => {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return undefined;
  }
};
const alive = (pid: number): boolean => cmdlineOf(pid) !== undefined && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');

/** Every PID whose command line mentions `needle`. */
export function pidsMentioning(needle: string): number[] {
  const found: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    if (cmdlineOf(Number(e))?.includes(needle)) found.push(Number(e));
  }
  return found;
}

async function stopPid(pid: number, graceMs: number): Promise<void> {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (alive(pid) && Date.now() < deadline) await sleep(100);
  if (alive(pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {}
    while (alive(pid)) await sleep(50);
  }
}

/** Stops the daemon recorded in pids/<name>, if that PID is still this node's. */
async function stopRecorded(l: NodeLayout, name: string, graceMs: number): Promise<void> {
  const file = join(l.pids, name);
  if (!existsSync(file)) return;
  const pid = Number(readFileSync(file, 'utf8').trim());
  if (pid > 0 && cmdlineOf(pid)?.includes(l.dir)) await stopPid(pid, graceMs);
  rmSync(file, { force: true });
}

const isMountpoint = async (path: string): Promise<boolean> => (await sh('mountpoint', ['-q', path])).code === 0;

/** Mount points at or under `dir` in this (the host's) mount namespace, deepest first. */
export function mountsUnder(dir: string): string[] {
  return readFileSync('/proc/self/mounts', 'utf8')
    .split('\n')
    .map((line) => line.split(' ')[1] ?? '')
    .filter((m) => m === dir || m.startsWith(`${dir}/`))
    .sort()
    .reverse();
}

/** The cgroup directories (every v1 hierarchy, or the v2 root) named `name` under `parent`. */
export function cgroupDirs(parent: string, name: string): string[] {
  const root = '/sys/fs/cgroup';
  const hierarchies = existsSync(join(root, 'cgroup.procs'))
    ? [root]
    : readdirSync(root)
        .map((h) => join(root, h))
        .filter((h) => existsSync(join(h, 'cgroup.procs')));
  return hierarchies.map((h) => join(h, parent, name)).filter((d) => existsSync(d));
}

function removeCgroupTree(dir: string): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) removeCgroupTree(join(dir, e.name));
  // rmdir of a cgroup with processes fails: the leftover check will name it
  removeEmptyDir(dir);
}

/** The ids of the containers this node's runc state root still knows. */
export async function runcContainers(l: NodeLayout): Promise<string[]> {
  const root = join(l.runcRoot, 'k8s.io');
  if (!existsSync(root)) return [];
  const r = await sh('runc', ['--root', root, 'list', '-q']);
  return r.stdout.split('\n').filter((s) => s !== '');
}

const shimSocket = async (l: NodeLayout, sandboxId: string): Promise<string> => {
  const { createHash } = await import('node:crypto');
  return `/run/containerd/s/${createHash('sha256').update(`${l.containerdSocket}/k8s.io/${sandboxId}`).digest('hex')}`;
};

/** What the teardown did, for the log. */
export interface TeardownReport {
  leftoverContainers: number;
  leftoverShims: number;
  leftoverMounts: string[];
  sysctlsRestored: boolean;
}

/**
 * Stops a node's kubelet, every container (through its containerd, or after a crash through runc's
 * state root), its containerd and its shims; returns the container ids runc knew before, for the
 * cgroup sweep. Used for the one node of a real-node world and for each node of a multi-node world.
 */
export async function stopRuntime(l: NodeLayout, report: TeardownReport): Promise<string[]> {
  await stopRecorded(l, 'kubelet', 5_000);
  const known = await runcContainers(l);
  // Every container and sandbox through this node's containerd, while it still runs.
  const ctr = (args: readonly string[]) => sh('ctr', ['--address', l.containerdSocket, '-n', 'k8s.io', ...args]);
  if (existsSync(l.containerdSocket) && (await ctr(['version'])).code === 0) {
    const tasks = (await ctr(['tasks', 'ls', '-q'])).stdout.split('\n').filter(Boolean);
    for (const id of tasks) await ctr(['tasks', 'kill', '-s', 'SIGKILL', id]);
    for (const id of tasks) await ctr(['tasks', 'delete', '-f', id]);
    for (const id of (await ctr(['containers', 'ls', '-q'])).stdout.split('\n').filter(Boolean)) await ctr(['containers', 'delete', id]);
  }
  await stopRecorded(l, 'containerd', 10_000);
  // Containers that outlived their containerd (a crash): runc's state names them; delete -f kills
  // them and removes their cgroups. A killed shim leaves its socket behind.
  const stale: string[] = [];
  for (const id of await runcContainers(l)) {
    stale.push(await shimSocket(l, id));
    await sh('runc', ['--root', join(l.runcRoot, 'k8s.io'), 'delete', '-f', id]);
    report.leftoverContainers++;
  }
  for (const pid of pidsMentioning(`-address ${l.containerdSocket}`)) {
    await stopPid(pid, 0);
    report.leftoverShims++;
  }
  for (const s of stale) rmSync(s, { force: true });
  rmSync(l.containerdSocket, { force: true });
  rmSync(`${l.containerdSocket}.ttrpc`, { force: true });
  return known;
}

/** The runtime's leftovers a node made on the host: CNI result files of its network, its containers' cgroups. */
export function removeRuntimeTraces(l: NodeLayout, known: readonly string[]): void {
  if (existsSync('/var/lib/cni/results'))
    for (const f of readdirSync('/var/lib/cni/results')) if (f.startsWith(`${l.cniNetwork}-`)) rmSync(join('/var/lib/cni/results', f));
  // runc removes a container's cgroups when it deletes it; one it could not delete leaves them
  for (const id of known) for (const d of cgroupDirs('k8s.io', id)) removeCgroupTree(d);
}

/** Removes every trace of the node `l` (running, half-started or crashed). Idempotent. */
export async function tearDownNode(l: NodeLayout): Promise<TeardownReport> {
  const report: TeardownReport = { leftoverContainers: 0, leftoverShims: 0, leftoverMounts: [], sysctlsRestored: false };
  if (existsSync(l.pids)) for (const f of readdirSync(l.pids).filter((f) => f.startsWith('x-'))) await stopRecorded(l, f, 5_000);
  const known = await stopRuntime(l, report);
  for (const n of STOP_ORDER.slice(2)) await stopRecorded(l, n, 10_000);
  // Anything else still naming the directory (a process started outside the PID files).
  for (const pid of pidsMentioning(l.dir)) await stopPid(pid, 2_000);

  if (await isMountpoint(l.mntnsDir)) {
    await sh('umount', [l.mntnsPath]);
    await sh('umount', [l.mntnsDir]);
  }
  for (const m of mountsUnder(l.dir)) {
    report.leftoverMounts.push(m);
    await sh('umount', ['-l', m]);
  }
  if (existsSync(l.netnsBefore)) {
    const before = new Set(readFileSync(l.netnsBefore, 'utf8').split('\n'));
    for (const f of existsSync('/var/run/netns') ? readdirSync('/var/run/netns') : []) {
      const path = join('/var/run/netns', f);
      if (f.startsWith('cni-') && !before.has(f) && !(await isMountpoint(path))) rmSync(path, { force: true });
    }
  }
  if (existsSync(l.netnsPath)) await sh('ip', ['netns', 'del', l.netns]);
  removeRuntimeTraces(l, known);

  if (!otherNodesRunning(l)) {
    if (existsSync(l.hostOrig)) {
      await restoreHost(JSON.parse(readFileSync(l.hostOrig, 'utf8')) as HostBefore);
      rmSync(l.hostOrig, { force: true });
    }
    if (existsSync(l.sysctlsOrig)) {
      for (const line of readFileSync(l.sysctlsOrig, 'utf8').split('\n').filter(Boolean)) await sh('sysctl', ['-qw', line]);
      rmSync(l.sysctlsOrig, { force: true });
      report.sysctlsRestored = true;
    }
  }
  // Logs stay for reading (<base>/<name>.logs), the rest of the state goes.
  if (existsSync(l.logs)) {
    rmSync(`${l.dir}.logs`, { recursive: true, force: true });
    await sh('mv', [l.logs, `${l.dir}.logs`]);
  }
  rmSync(l.dir, { recursive: true, force: true });
  return report;
}

const FIXED_DIRS = Object.keys(KUBELET_FIXED_DIRS);

/** The `k8s.io` parent cgroups (one per hierarchy) that runc creates for the containers' cgroups. */
export const k8sCgroupParents = (): string[] => cgroupDirs('', 'k8s.io');

const netnsEntries = (): string[] => (existsSync(NETNS_DIR) ? readdirSync(NETNS_DIR) : []);

/** The host's state that nodes change, now (recorded before the first node starts). */
export async function hostBefore(): Promise<HostBefore> {
  return {
    cgroupParents: k8sCgroupParents(),
    fixedDirsExisted: FIXED_DIRS.filter((d) => existsSync(d)),
    netnsDirExisted: existsSync(NETNS_DIR),
    netnsDirMounted: await isMountpoint(NETNS_DIR),
  };
}

/** rmdir: only an empty directory goes (rmSync refuses a directory unless recursive). */
function removeEmptyDir(path: string): void {
  try {
    rmdirSync(path);
  } catch {
    // not empty, or in use: the leftover check will name it
  }
}

/** Undoes what the nodes made on the host, once the last node is gone; what still has users stays. */
async function restoreHost(before: HostBefore): Promise<void> {
  for (const d of k8sCgroupParents()) if (!before.cgroupParents.includes(d)) removeCgroupTree(d);
  for (const d of FIXED_DIRS) if (!before.fixedDirsExisted.includes(d) && existsSync(d) && !(await isMountpoint(d))) removeEmptyDir(d);
  // Empty: no other namespace file is in it (a bind-mounted one would make umount fail anyway).
  if (netnsEntries().length > 0) return;
  if (!before.netnsDirMounted && (await isMountpoint(NETNS_DIR))) await sh('umount', [NETNS_DIR]);
  if (!before.netnsDirExisted && existsSync(NETNS_DIR) && !(await isMountpoint(NETNS_DIR))) removeEmptyDir(NETNS_DIR);
}

/** True when another node's state directory (a running or crashed node) is on this host. */
function otherNodesRunning(l: NodeLayout): boolean {
  if (!existsSync(NODE_BASE)) return false;
  return readdirSync(NODE_BASE).some((e) => e !== l.name && !e.endsWith('.logs') && existsSync(join(NODE_BASE, e, 'pids')));
}

/** Current values of the kernel settings the kubelet changes. */
export async function kubeletSysctls(): Promise<string[]> {
  const r = await sh('sysctl', [...KUBELET_SYSCTLS]);
  return r.stdout.split('\n').filter(Boolean);
}

/** The inode of a network namespace file, to find processes still inside it. */
export const netnsInode = (path: string): number => statSync(path).ino;

/** Processes whose network namespace is the one with inode `ino`. */
export function pidsInNetns(ino: number): number[] {
  const found: number[] = [];
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      if (readlinkSync(`/proc/${e}/ns/net`) === `net:[${ino}]`) found.push(Number(e));
    } catch {}
  }
  return found;
}

const linkTarget = (path: string): string | undefined => {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
};

/** Everything a node may leave behind, as sentences; empty when nothing is left. */
export interface LeftoverProbe {
  netnsInode: number;
  containerIds: readonly string[];
  cniNetnsBefore: ReadonlySet<string>;
  sysctlsBefore: readonly string[];
  /** hostBefore() from before the first node, to check the host after the last one; left out mid-run. */
  hostBefore?: HostBefore;
}

export async function leftovers(l: NodeLayout, probe: LeftoverProbe): Promise<string[]> {
  const found: string[] = [];
  for (const pid of pidsMentioning(l.dir)) found.push(`process ${pid}: ${cmdlineOf(pid)?.slice(0, 120)}`);
  for (const pid of pidsInNetns(probe.netnsInode)) found.push(`process ${pid} in the node's netns: ${cmdlineOf(pid)?.slice(0, 120)}`);
  for (const m of mountsUnder(l.dir)) found.push(`mount ${m}`);
  for (const d of FIXED_DIRS) for (const m of mountsUnder(d)) found.push(`mount ${m}`);
  for (const d of FIXED_DIRS.filter((f) => existsSync(f)))
    for (const f of readdirSync(d)) if (linkTarget(join(d, f))?.startsWith(l.dir)) found.push(`link ${join(d, f)} into ${l.dir}`);
  if (existsSync(l.netnsPath)) found.push(`netns ${l.netnsPath}`);
  for (const f of existsSync('/var/run/netns') ? readdirSync('/var/run/netns') : [])
    if (f.startsWith('cni-') && !probe.cniNetnsBefore.has(f)) found.push(`pod netns file /var/run/netns/${f}`);
  for (const id of probe.containerIds) for (const d of cgroupDirs('k8s.io', id)) found.push(`cgroup ${d}`);
  for (const d of [...cgroupDirs('', 'kubepods'), ...cgroupDirs('', 'kubepods.slice')]) found.push(`cgroup ${d}`);
  const now = await kubeletSysctls();
  for (const [i, s] of probe.sysctlsBefore.entries()) if (now[i] !== s) found.push(`sysctl ${now[i]} (was ${s})`);
  if (probe.hostBefore) {
    const before = probe.hostBefore;
    for (const d of k8sCgroupParents()) if (!before.cgroupParents.includes(d)) found.push(`cgroup ${d}`);
    for (const d of FIXED_DIRS) if (!before.fixedDirsExisted.includes(d) && existsSync(d)) found.push(`directory ${d}`);
    if (!before.netnsDirMounted && (await isMountpoint(NETNS_DIR))) found.push(`mount ${NETNS_DIR}`);
    if (!before.netnsDirExisted && existsSync(NETNS_DIR)) found.push(`directory ${NETNS_DIR}`);
  }
  if (existsSync(l.dir)) found.push(`directory ${l.dir}`);
  return found;
}

/** What leftovers() compares the host with after the last node: take it before the first one starts. */
export async function hostSnapshot(): Promise<Pick<LeftoverProbe, 'cniNetnsBefore' | 'sysctlsBefore' | 'hostBefore'>> {
  return { cniNetnsBefore: cniNetnsFiles(), sysctlsBefore: await kubeletSysctls(), hostBefore: await hostBefore() };
}

/** The pod netns files on the host now. */
export const cniNetnsFiles = (): Set<string> =>
  new Set(existsSync('/var/run/netns') ? readdirSync('/var/run/netns').filter((f) => f.startsWith('cni-')) : []);
