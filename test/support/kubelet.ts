// A stand-in for the scheduler and the kubelet (DESIGN §8), for a test world whose API server,
// etcd and kube-controller-manager are real:
//
//   const kubelet = await Kubelet.start(api, { images: { 'valkey/valkey:9.0.1': { build: '9.1.2' } } });
//   ... kubelet.pod('team-a', 'sessions-0-1')?.ip ...
//   await kubelet.stop();
//
// It registers Nodes, binds each unscheduled pod to the least busy node that kube-scheduler's hard
// filters allow (kubelet/scheduling.ts: node selector and affinity, required pod anti-affinity,
// DoNotSchedule spread; none: the pod stays Pending with PodScheduled False, Unschedulable, and is
// tried again when a pod goes away) (pods/binding), and for
// each pod bound to them runs a real process from ../shared/valkey/<build>/ on the pod's own
// loopback address, with the pod's ConfigMap and Secret volumes projected into a per-pod dir and
// its environment and arguments expanded from the pod spec. It reports status like a kubelet
// (podIP, phase, started/ready from a PING probe, terminated state with exit code and, for
// FallbackToLogsOnError, the log tail), restarts a container that exits (with back-off), and
// when a pod is deleted runs its preStop exec hook (as the kubelet does: first, inside the grace
// period, given 2 s more once if it runs over), then stops its process (SIGTERM, SIGKILL when
// the grace period is up), drops its emptyDirs and removes the pod for good (grace period 0). ConfigMap and Secret changes reach the pod's files
// after `configSyncDelayMs`, as the kubelet's sync lag delays them; a running process only sees
// them when it reads the files again (ACL LOAD, a restart).
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ApiServer } from './apiserver.js';
import { watchCollection, type Watch, type WatchEventType } from './kube-watch.js';
import { containerCommand, type ContainerCommand, type Mount } from './kubelet/container-command.js';
import { ConfigError, containerEnv, expand } from './kubelet/container-env.js';
import { runExecProbe } from './kubelet/exec-probe.js';
import { ping, isPong, isStarted } from './kubelet/ping.js';
import { PodIps } from './kubelet/pod-ips.js';
import { ConditionClock, podStatus, type ContainerState, type TerminatedState } from './kubelet/pod-status.js';
import {
  configMapBytes,
  podKey,
  secretBytes,
  type ConfigMap,
  type Container,
  type KeyedBytes,
  type Pod,
  type Secret,
  type Volume,
} from './kubelet/pod.js';
import { mergePatch } from './kubelet/merge-patch.js';
import { type NodeLabelling, nodeLabels, registerNodes } from './kubelet/nodes.js';
import { chooseNode, type Placed, type SchedPod } from './kubelet/scheduling.js';
import { ProjectedVolume, volumeFiles } from './kubelet/projected-volume.js';
import { terminatedState } from './kubelet/termination.js';
import { VALKEY_BUILDS_DIR } from './paths.js';
import { Reaper, spawnDaemon, type Daemon } from './process.js';

export interface ImageBuild {
  /**
   * A folder of ../shared/valkey/: `9.1.2` for the images at or above the floor, `8.0.1` for the
   * "old binary" images (it refuses the rendered users.acl and exits at start-up, as it would in a
   * real pod). The projected files are never edited.
   */
  build: string;
}

export interface KubeletOptions {
  /** Container image -> Valkey build. A pod whose image is not listed fails with ErrImagePull. */
  images: Record<string, ImageBuild>;
  /** Node names to register (default three, in zones a, b, c). */
  nodes?: readonly string[];
  /** The Nodes' zones and extra labels (kubelet/nodes.ts). */
  nodeLabelling?: NodeLabelling;
  /** Delay between a ConfigMap/Secret change and the pod's files showing it (default 2 000 ms). */
  configSyncDelayMs?: number;
  /** Probe period (default 500 ms; the rendered probes say 5 s). */
  probePeriodMs?: number;
  /**
   * What makes a started pod Ready: `ping` (default) a PING answered PONG; `script` the
   * container's readinessProbe command itself, the rendered probe script run by BusyBox `sh` with
   * the pod's environment (kubelet/exec-probe.ts), so Ready means what it means on a real node.
   */
  readiness?: 'ping' | 'script';
  /** First restart back-off after a container exits (default 1 000 ms, doubling up to 32x). */
  restartBackoffMs?: number;
  /** Keep the pod dirs and logs after stop() (also: env VALKEY_KRM_HARNESS_KEEP=1). */
  keepDir?: boolean;
  log?: (msg: string) => void;
}

/** What a test may look at for one running pod. */
export interface PodHandle {
  readonly uid: string;
  readonly ip: string;
  readonly node: string;
  /** The host dir of a volume (emptyDir, configMap or secret) by volume name. */
  volumeDir(volume: string): string;
  /** The log of the current container instance. */
  readonly logPath: string;
  /** Process id of the running container, if any. */
  readonly pid: number | undefined;
  /** The last failed exec readiness probe's output (readiness 'script'), until one passes. */
  readonly readinessOutput: string | undefined;
}

interface VolumeSource {
  kind: 'configMap' | 'secret';
  name: string;
  volume: Volume;
  projected: ProjectedVolume;
  timer?: NodeJS.Timeout;
}

interface PodRuntime {
  uid: string;
  ns: string;
  name: string;
  node: string;
  pod: Pod;
  container: Container;
  dir: string;
  ip?: string;
  startTime: string;
  volumes: Map<string, string>;
  sources: VolumeSource[];
  command?: ContainerCommand;
  /** The container's environment and mounts (for an exec probe). */
  env?: Map<string, string>;
  mounts?: Mount[];
  /** The last exec readiness probe's output when it failed (what the kubelet's Unhealthy event says). */
  readinessOutput?: string;
  process?: Daemon;
  logPath: string;
  containerID?: string;
  runningSince?: string;
  state: ContainerState;
  lastState?: { terminated: TerminatedState };
  restartCount: number;
  started: boolean;
  ready: boolean;
  probeFailures: number;
  backoffMs: number;
  restartTimer?: NodeJS.Timeout;
  terminating: boolean;
  clock: ConditionClock;
  reported?: string;
}

/** What the scheduling rules read of a pod (its spec carries more fields than the Pod type names). */
const schedPod = (pod: Pod): SchedPod => ({
  namespace: pod.metadata.namespace ?? 'default',
  labels: pod.metadata.labels ?? {},
  spec: pod.spec as unknown as SchedPod['spec'],
});

/** The kubelet gives a preStop hook that overran the grace period this much more, once, before it kills. */
const PRESTOP_EXTENSION_MS = 2_000;

const now = (): string => new Date().toISOString().replace(/\.\d+Z$/, 'Z');
const containerPorts = (c: Container): number[] => (c.ports ?? []).map((p) => p.containerPort);

export class Kubelet {
  private readonly pods = new Map<string, PodRuntime>();
  private readonly byName = new Map<string, string>();
  /** Pods bound by this stand-in, uid -> node (counted before the kubelet side sees them). */
  private readonly binding = new Map<string, { node: string; pod: Pod }>();
  /** Pods no node can take yet (as kube-scheduler's unschedulable queue), uid -> pod and the message reported. */
  private readonly unschedulable = new Map<string, { pod: Pod; message: string }>();
  private readonly queues = new Map<string, Promise<void>>();
  private readonly watches: Watch[] = [];
  private readonly ips = new PodIps();
  private stopped = false;
  private probing: Promise<void> = Promise.resolve();

  private constructor(
    private readonly api: ApiServer,
    private readonly opts: KubeletOptions,
    readonly dir: string,
    private readonly reaper: Reaper,
    readonly nodes: readonly string[],
  ) {}

  static async start(api: ApiServer, opts: KubeletOptions): Promise<Kubelet> {
    const keep = opts.keepDir ?? process.env.VALKEY_KRM_HARNESS_KEEP === '1';
    const dir = await mkdtemp(join(tmpdir(), 'valkey-krm-kubelet-'));
    const kubelet = new Kubelet(api, opts, dir, new Reaper(dir, keep), opts.nodes ?? ['node-a', 'node-b', 'node-c']);
    try {
      await registerNodes(api, kubelet.nodes, kubelet.ips.hostIp, opts.nodeLabelling);
      kubelet.watches.push(
        watchCollection<ConfigMap>(api, '/api/v1/configmaps', (_t, cm) =>
          kubelet.sourceChanged('configMap', cm.metadata.namespace ?? '', cm.metadata.name),
        ),
        watchCollection<Secret>(api, '/api/v1/secrets', (_t, s) =>
          kubelet.sourceChanged('secret', s.metadata.namespace ?? '', s.metadata.name),
        ),
        watchCollection<Pod>(api, '/api/v1/pods', (t, pod) => kubelet.podEvent(t, pod)),
      );
      await Promise.all(kubelet.watches.map((w) => w.synced));
      kubelet.probing = kubelet.probeLoop();
    } catch (e) {
      await kubelet.stop();
      throw e;
    }
    return kubelet;
  }

  /** The pod as this kubelet runs it, or undefined when it runs no such pod (yet). */
  pod(ns: string, name: string): PodHandle | undefined {
    const uid = this.byName.get(podKey(ns, name));
    const rt = uid === undefined ? undefined : this.pods.get(uid);
    if (rt?.ip === undefined) return undefined;
    const ip = rt.ip;
    return {
      uid: rt.uid,
      ip,
      node: rt.node,
      logPath: rt.logPath,
      pid: rt.process?.hasExited() === false ? rt.process.pid : undefined,
      readinessOutput: rt.readinessOutput,
      volumeDir: (volume) => {
        const d = rt.volumes.get(volume);
        if (d === undefined) throw new Error(`pod ${ns}/${name} has no volume ${volume}`);
        return d;
      },
    };
  }

  /** SIGSTOP a pod's process: it stops answering, so the pod turns not ready (and CONT resumes it). */
  freeze(ns: string, name: string, frozen = true): void {
    const pid = this.pod(ns, name)?.pid;
    if (pid === undefined) throw new Error(`pod ${ns}/${name} has no running process`);
    process.kill(-pid, frozen ? 'SIGSTOP' : 'SIGCONT');
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    for (const w of this.watches) w.stop();
    await this.probing;
    // Work already queued finishes first (it checks `stopped` and starts nothing new), so
    // nothing writes into the dir after it is gone.
    await Promise.all(this.queues.values());
    for (const rt of this.pods.values()) {
      clearTimeout(rt.restartTimer);
      for (const s of rt.sources) clearTimeout(s.timer);
    }
    await Promise.all([...this.pods.values()].map((rt) => rt.process?.stop(2_000)));
    this.reaper.cleanupSync();
  }

  // ------------------------------------------------------------------ nodes and binding

  /** Every pod bound here or by this stand-in, with the labels the scheduling rules read. */
  private placed(): Placed[] {
    const out = new Map<string, Placed>();
    for (const [uid, b] of this.binding) out.set(uid, { node: b.node, pod: schedPod(b.pod) });
    for (const rt of this.pods.values()) out.set(rt.uid, { node: rt.node, pod: schedPod(rt.pod) });
    return [...out.values()];
  }

  /** Binds an unscheduled pod where the rules allow, or reports it Unschedulable and keeps it for later. */
  private schedule(pod: Pod): void {
    const uid = pod.metadata.uid;
    const decision = chooseNode(schedPod(pod), nodeLabels(this.nodes, this.opts.nodeLabelling), this.placed());
    if (decision.kind === 'bind') {
      this.unschedulable.delete(uid);
      this.binding.set(uid, { node: decision.node, pod });
      this.enqueue(uid, () => this.bind(pod, decision.node));
      return;
    }
    const before = this.unschedulable.get(uid);
    this.unschedulable.set(uid, { pod, message: decision.message });
    if (before?.message === decision.message) return;
    this.log(`${pod.metadata.namespace}/${pod.metadata.name}: unschedulable: ${decision.message}`);
    const { name, namespace = 'default' } = pod.metadata;
    this.enqueue(uid, async () => {
      const condition = {
        type: 'PodScheduled',
        status: 'False',
        reason: 'Unschedulable',
        message: decision.message,
        lastTransitionTime: now(),
      };
      await mergePatch(this.api, `/api/v1/namespaces/${namespace}/pods/${name}/status`, {
        status: { phase: 'Pending', conditions: [condition] },
      });
    });
  }

  /** A pod went away: what could not be placed may fit now. */
  private retryUnschedulable(): void {
    for (const { pod } of [...this.unschedulable.values()]) this.schedule(pod);
  }

  private async bind(pod: Pod, node: string): Promise<void> {
    const { name, namespace = 'default' } = pod.metadata;
    const res = await this.api.request('POST', `/api/v1/namespaces/${namespace}/pods/${name}/binding`, {
      apiVersion: 'v1',
      kind: 'Binding',
      metadata: { name, namespace, uid: pod.metadata.uid },
      target: { apiVersion: 'v1', kind: 'Node', name: node },
    });
    if (res.status !== 201 && res.status !== 409 && res.status !== 404) this.log(`bind ${namespace}/${name}: ${res.status} ${res.body}`);
  }

  // ------------------------------------------------------------------ pod events

  private log(msg: string): void {
    this.opts.log?.(msg);
  }

  /** Work on one pod runs in order; different pods in parallel. */
  private enqueue(uid: string, work: () => Promise<void>): void {
    const prev = this.queues.get(uid) ?? Promise.resolve();
    const next = prev
      .then(() => (this.stopped ? undefined : work()))
      .catch((e: unknown) => this.log(`pod ${uid}: ${(e as Error).stack ?? String(e)}`));
    this.queues.set(uid, next);
    void next.then(() => {
      if (this.queues.get(uid) === next) this.queues.delete(uid);
    });
  }

  private podEvent(type: WatchEventType, pod: Pod): void {
    const uid = pod.metadata.uid;
    const known = this.pods.get(uid);
    if (type === 'DELETED') {
      this.binding.delete(uid);
      if (this.unschedulable.delete(uid) || !known) this.retryUnschedulable();
      if (known && !known.terminating) {
        known.terminating = true;
        this.enqueue(uid, () => this.terminate(known, false));
      }
      return;
    }
    const node = pod.spec.nodeName;
    if (node === undefined || node === '') {
      const ours = (pod.spec.schedulerName ?? 'default-scheduler') === 'default-scheduler';
      if (ours && pod.metadata.deletionTimestamp === undefined && !this.binding.has(uid)) this.schedule(pod);
      else if (pod.metadata.deletionTimestamp !== undefined) this.unschedulable.delete(uid);
      return;
    }
    if (!this.nodes.includes(node)) return;
    if (known) {
      known.pod = pod;
      if (pod.metadata.deletionTimestamp !== undefined && !known.terminating) {
        known.terminating = true;
        this.enqueue(uid, () => this.terminate(known, true));
      }
      return;
    }
    if (pod.metadata.deletionTimestamp !== undefined) {
      // Never started here (e.g. deleted before we saw it bound): nothing to stop.
      this.enqueue(uid, () => this.forceDelete(pod));
      return;
    }
    const container = pod.spec.containers[0];
    if (container === undefined) return;
    const ns = pod.metadata.namespace ?? 'default';
    const dir = join(this.dir, 'pods', uid);
    const rt: PodRuntime = {
      uid,
      ns,
      name: pod.metadata.name,
      node,
      pod,
      container,
      dir,
      startTime: now(),
      volumes: new Map(),
      sources: [],
      logPath: join(this.dir, 'logs', `${ns}_${pod.metadata.name}_${uid}`, `${container.name}-0.log`),
      state: { waiting: { reason: 'ContainerCreating' } },
      restartCount: 0,
      started: false,
      ready: false,
      probeFailures: 0,
      backoffMs: this.opts.restartBackoffMs ?? 1_000,
      terminating: false,
      clock: new ConditionClock(),
    };
    this.pods.set(uid, rt);
    this.byName.set(podKey(ns, rt.name), uid);
    this.enqueue(uid, () => this.setUpOrRetry(rt));
  }

  // ------------------------------------------------------------------ pod life cycle

  private async fetchKeys(kind: 'configMap' | 'secret', ns: string, name: string): Promise<KeyedBytes | undefined> {
    const res = await this.api.request('GET', `/api/v1/namespaces/${ns}/${kind === 'secret' ? 'secrets' : 'configmaps'}/${name}`);
    if (res.status === 404) return undefined;
    if (res.status !== 200) throw new Error(`GET ${kind} ${ns}/${name}: ${res.status}`);
    return kind === 'secret' ? secretBytes(JSON.parse(res.body) as Secret) : configMapBytes(JSON.parse(res.body) as ConfigMap);
  }

  private build(rt: PodRuntime): ImageBuild | undefined {
    return this.opts.images[rt.container.image];
  }

  /** A source's files as this pod gets them. */
  private async sourceFiles(
    rt: PodRuntime,
    s: { kind: 'configMap' | 'secret'; name: string; volume: Volume },
  ): Promise<Map<string, Buffer> | undefined> {
    const keys = await this.fetchKeys(s.kind, rt.ns, s.name);
    if (keys === undefined) return undefined;
    const items = s.kind === 'configMap' ? s.volume.configMap?.items : s.volume.secret?.items;
    return volumeFiles(keys, items);
  }

  /** Volumes, IP, environment, then the first container start; retried while something is missing. */
  private async setUp(rt: PodRuntime): Promise<void> {
    if (rt.terminating) return;
    const build = this.build(rt);
    if (build === undefined) {
      await this.setWaiting(rt, 'ErrImagePull', `the stand-in kubelet has no Valkey build for image "${rt.container.image}"`);
      return;
    }
    rt.ip ??= await this.ips.allocate(containerPorts(rt.container));
    for (const v of rt.pod.spec.volumes ?? []) {
      const hostDir = join(rt.dir, 'volumes', v.name);
      rt.volumes.set(v.name, hostDir);
      const source = v.configMap
        ? { kind: 'configMap' as const, name: v.configMap.name }
        : v.secret
          ? { kind: 'secret' as const, name: v.secret.secretName }
          : undefined;
      if (source === undefined) {
        await mkdir(hostDir, { recursive: true }); // emptyDir (and anything else: an empty dir)
        continue;
      }
      if (rt.sources.some((s) => s.volume.name === v.name)) continue;
      const files = await this.sourceFiles(rt, { ...source, volume: v });
      const optional = (v.configMap?.optional ?? v.secret?.optional) === true;
      if (files === undefined && !optional) {
        await this.setWaiting(
          rt,
          'ContainerCreating',
          `MountVolume.SetUp failed for volume "${v.name}": ${source.kind} "${source.name}" not found`,
        );
        this.retrySetUp(rt);
        return;
      }
      const projected = new ProjectedVolume(hostDir, v.secret?.defaultMode ?? v.configMap?.defaultMode ?? 0o644);
      await projected.project(files ?? new Map());
      rt.sources.push({ ...source, volume: v, projected });
    }
    const mounts: Mount[] = (rt.container.volumeMounts ?? []).flatMap((m) => {
      const hostDir = rt.volumes.get(m.name);
      return hostDir === undefined ? [] : [{ mountPath: m.mountPath, hostDir }];
    });
    let env: Map<string, string>;
    try {
      env = await containerEnv(rt.pod, rt.container, {
        podIp: rt.ip,
        hostIp: this.ips.hostIp,
        secret: (name) => this.fetchKeys('secret', rt.ns, name),
        configMap: (name) => this.fetchKeys('configMap', rt.ns, name),
      });
    } catch (e) {
      if (!(e instanceof ConfigError)) throw e;
      await this.setWaiting(rt, 'CreateContainerConfigError', e.message);
      this.retrySetUp(rt);
      return;
    }
    rt.env = env;
    rt.mounts = mounts;
    rt.command = await containerCommand({
      command: (rt.container.command ?? []).map((a) => expand(a, env)),
      args: (rt.container.args ?? []).map((a) => expand(a, env)),
      binDir: join(VALKEY_BUILDS_DIR, build.build),
      mounts,
      scratchDir: join(rt.dir, 'host-config'),
      podIp: rt.ip,
      port: rt.container.ports?.find((p) => p.name === 'valkey')?.containerPort ?? rt.container.ports?.[0]?.containerPort ?? 6379,
    });
    await this.startContainer(rt, env);
  }

  /** A kubelet keeps trying to start a pod; so does this one, whatever went wrong (logged). */
  private async setUpOrRetry(rt: PodRuntime): Promise<void> {
    try {
      await this.setUp(rt);
    } catch (e) {
      this.log(`${rt.ns}/${rt.name}: set-up failed, retrying: ${(e as Error).message}`);
      this.retrySetUp(rt);
    }
  }

  private retrySetUp(rt: PodRuntime): void {
    rt.restartTimer = setTimeout(() => this.enqueue(rt.uid, () => this.setUpOrRetry(rt)), 1_000);
  }

  private async setWaiting(rt: PodRuntime, reason: string, message: string): Promise<void> {
    rt.state = { waiting: { reason, message } };
    await this.report(rt);
  }

  private async startContainer(rt: PodRuntime, env: Map<string, string>): Promise<void> {
    const command = rt.command;
    if (command === undefined || rt.terminating || this.stopped) return;
    rt.logPath = join(this.dir, 'logs', `${rt.ns}_${rt.name}_${rt.uid}`, `${rt.container.name}-${String(rt.restartCount)}.log`);
    await mkdir(dirname(rt.logPath), { recursive: true });
    const processEnv: NodeJS.ProcessEnv = { ...Object.fromEntries(env), PATH: `${dirname(command.binary)}:/usr/bin:/bin` };
    const proc = spawnDaemon(`${rt.ns}/${rt.name}`, command.binary, command.args, rt.logPath, processEnv);
    this.reaper.add(proc);
    rt.process = proc;
    rt.containerID = `harness://${String(proc.pid)}`;
    rt.runningSince = now();
    rt.state = { running: { startedAt: rt.runningSince } };
    rt.started = false;
    rt.ready = false;
    rt.probeFailures = 0;
    this.log(`${rt.ns}/${rt.name}: started ${command.binary} (pid ${String(proc.pid)}) on ${rt.ip ?? '?'}`);
    void proc.exited.then(({ code, signal }) => {
      this.reaper.remove(proc);
      if (rt.process === proc && !rt.terminating && !this.stopped) this.enqueue(rt.uid, () => this.containerExited(rt, env, code, signal));
    });
    await this.report(rt);
  }

  private async containerExited(
    rt: PodRuntime,
    env: Map<string, string>,
    code: number | null,
    signal: NodeJS.Signals | null,
  ): Promise<void> {
    if (rt.terminating) return;
    const terminated = await terminatedState({
      container: rt.container,
      code,
      signal,
      logPath: rt.logPath,
      startedAt: rt.runningSince ?? now(),
      containerID: rt.containerID ?? '',
    });
    this.log(`${rt.ns}/${rt.name}: container exited with ${String(terminated.exitCode)}`);
    rt.process = undefined;
    rt.started = false;
    rt.ready = false;
    rt.state = { terminated };
    await this.report(rt);
    // Then, like the kubelet: waiting in back-off, the exit kept as the last state.
    const backoff = rt.backoffMs;
    rt.backoffMs = Math.min(backoff * 2, (this.opts.restartBackoffMs ?? 1_000) * 32);
    rt.lastState = { terminated };
    rt.state = {
      waiting: {
        reason: 'CrashLoopBackOff',
        message: `back-off ${String(backoff)}ms restarting failed container=${rt.container.name} pod=${rt.name}_${rt.ns}(${rt.uid})`,
      },
    };
    await sleep(Math.min(backoff, this.opts.probePeriodMs ?? 500));
    if (rt.terminating) return;
    await this.report(rt);
    rt.restartTimer = setTimeout(() => {
      this.enqueue(rt.uid, async () => {
        if (rt.terminating) return;
        rt.restartCount++;
        await this.startContainer(rt, env);
      });
    }, backoff);
  }

  /** Pod deleted (graceful: stop within the grace period, then remove it for good) or gone already. */
  private async terminate(rt: PodRuntime, graceful: boolean): Promise<void> {
    rt.terminating = true;
    clearTimeout(rt.restartTimer);
    for (const s of rt.sources) clearTimeout(s.timer);
    const graceSeconds = rt.pod.metadata.deletionGracePeriodSeconds ?? rt.pod.spec.terminationGracePeriodSeconds ?? 30;
    const deadline = Date.now() + Math.max(graceSeconds, 1) * 1_000;
    if (graceful && graceSeconds > 0) await this.preStop(rt, graceSeconds);
    // A hook that used the whole grace period leaves the kubelet's one-off 2 s extension.
    if (rt.process) await rt.process.stop(Math.max(deadline - Date.now(), PRESTOP_EXTENSION_MS));
    if (rt.process) this.reaper.remove(rt.process);
    rt.process = undefined;
    await rm(rt.dir, { recursive: true, force: true }); // emptyDir: the data goes with the pod
    if (rt.ip !== undefined) this.ips.release(rt.ip);
    this.pods.delete(rt.uid);
    this.binding.delete(rt.uid);
    this.retryUnschedulable();
    if (this.byName.get(podKey(rt.ns, rt.name)) === rt.uid) this.byName.delete(podKey(rt.ns, rt.name));
    this.log(`${rt.ns}/${rt.name}: stopped and removed`);
    if (graceful) await this.forceDelete(rt.pod);
  }

  /**
   * The container's preStop exec hook, run as the kubelet runs it: in the container (the exec
   * probe's way, kubelet/exec-probe.ts), while the server still runs, bounded by the grace period
   * (and the 2 s extension); a failed or timed-out hook is logged and the stop goes on.
   */
  private async preStop(rt: PodRuntime, graceSeconds: number): Promise<void> {
    const hook = rt.container.lifecycle?.preStop?.exec;
    if (hook === undefined || rt.process === undefined || rt.command === undefined) return;
    if (rt.env === undefined || rt.mounts === undefined || rt.ip === undefined) return;
    const t0 = Date.now();
    const r = await runExecProbe(
      { command: hook.command, timeoutSeconds: graceSeconds + PRESTOP_EXTENSION_MS / 1_000 },
      { mounts: rt.mounts, env: rt.env, binDir: dirname(rt.command.binary), podIp: rt.ip, scratchDir: join(rt.dir, 'prestop') },
    );
    const took = `${String(Date.now() - t0)} ms`;
    this.log(`${rt.ns}/${rt.name}: preStop ${r.ok ? 'done' : 'failed'} after ${took}${r.output ? `: ${r.output}` : ''}`);
  }

  private async forceDelete(pod: Pod): Promise<void> {
    const { name, namespace = 'default', uid } = pod.metadata;
    const res = await this.api.request('DELETE', `/api/v1/namespaces/${namespace}/pods/${name}`, {
      apiVersion: 'v1',
      kind: 'DeleteOptions',
      gracePeriodSeconds: 0,
      preconditions: { uid },
    });
    if (res.status !== 200 && res.status !== 404 && res.status !== 409) this.log(`delete ${namespace}/${name}: ${res.status} ${res.body}`);
  }

  // ------------------------------------------------------------------ status and probes

  private async report(rt: PodRuntime): Promise<void> {
    if (rt.terminating || this.stopped) return;
    const status = podStatus(
      {
        hostIp: this.ips.hostIp,
        ...(rt.ip === undefined ? {} : { podIp: rt.ip }),
        startTime: rt.startTime,
        container: {
          name: rt.container.name,
          image: rt.container.image,
          ...(rt.containerID === undefined ? {} : { containerID: rt.containerID }),
          state: rt.state,
          ...(rt.lastState === undefined ? {} : { lastState: rt.lastState }),
          restartCount: rt.restartCount,
          started: rt.started,
          ready: rt.ready,
        },
      },
      rt.clock,
    );
    const text = JSON.stringify(status);
    if (text === rt.reported) return;
    if ((await mergePatch(this.api, `/api/v1/namespaces/${rt.ns}/pods/${rt.name}/status`, { status })) === 200) rt.reported = text;
  }

  private async probeLoop(): Promise<void> {
    const period = this.opts.probePeriodMs ?? 500;
    while (!this.stopped) {
      await Promise.all([...this.pods.values()].map((rt) => this.probe(rt)));
      await sleep(period);
    }
  }

  private async probe(rt: PodRuntime): Promise<void> {
    if (rt.process === undefined || rt.command === undefined || rt.terminating || !('running' in rt.state)) return;
    const reply = await ping(rt.command.ping, Math.max(200, (this.opts.probePeriodMs ?? 500) * 2));
    const threshold = rt.container.readinessProbe?.failureThreshold ?? 3;
    const wasReady = rt.ready;
    const wasStarted = rt.started;
    if (!rt.started) rt.started = isStarted(reply);
    const exec = this.opts.readiness === 'script' ? rt.container.readinessProbe?.exec : undefined;
    if (exec !== undefined && rt.started && rt.env !== undefined && rt.mounts !== undefined && rt.ip !== undefined) {
      const r = await runExecProbe(
        {
          command: exec.command,
          ...(rt.container.readinessProbe?.timeoutSeconds ? { timeoutSeconds: rt.container.readinessProbe.timeoutSeconds } : {}),
        },
        { mounts: rt.mounts, env: rt.env, binDir: dirname(rt.command.binary), podIp: rt.ip, scratchDir: join(rt.dir, 'probe') },
      );
      if (r.ok) {
        rt.probeFailures = 0;
        rt.readinessOutput = undefined;
        rt.ready = true;
      } else {
        rt.readinessOutput = r.output;
        if (++rt.probeFailures >= threshold) rt.ready = false;
      }
    } else if (isPong(reply)) {
      rt.probeFailures = 0;
      rt.ready = rt.started;
      if (rt.ready) rt.backoffMs = this.opts.restartBackoffMs ?? 1_000;
    } else if (++rt.probeFailures >= threshold) {
      rt.ready = false;
    }
    if (rt.ready !== wasReady || rt.started !== wasStarted) this.enqueue(rt.uid, () => this.report(rt));
  }

  // ------------------------------------------------------------------ ConfigMap / Secret sync

  private sourceChanged(kind: 'configMap' | 'secret', ns: string, name: string): void {
    const delay = this.opts.configSyncDelayMs ?? 2_000;
    for (const rt of this.pods.values()) {
      if (rt.ns !== ns || rt.terminating) continue;
      for (const s of rt.sources) {
        if (s.kind !== kind || s.name !== name || s.timer !== undefined) continue;
        s.timer = setTimeout(() => {
          s.timer = undefined;
          this.enqueue(rt.uid, async () => {
            if (rt.terminating) return;
            const files = await this.sourceFiles(rt, s);
            if (files !== undefined && (await s.projected.project(files)))
              this.log(`${rt.ns}/${rt.name}: ${kind} ${name} projected into volume ${s.volume.name}`);
          });
        }, delay);
      }
    }
  }
}
