import { ANNOTATIONS, LABELS, MANAGED_BY, type ValkeyClusterStatus } from '../api/index.js';
import { nodeFacts, type Node } from './reconcile/kube-facts.js';
import type { VersionPolicy } from './cluster/version-gate.js';
import type { KubeClient } from './kube/client.js';
import { Informer, type InformerError, type InformerEvent } from './kube/informer.js';
import { NamespacedInformers } from './kube/namespaced-informers.js';
import { paths } from './kube/paths.js';
import { deleteRetiredShard } from './kube/delete-shard.js';
import { isApiError } from './kube/client.js';
import { eventRecorder, type EventRecorder } from './kube/event-recorder.js';
import { objectKey, type ConfigMap, type ApiObject, type Pod, type Secret, type StatefulSet } from './kube/types.js';
import type { EvictionResult } from './reconcile/roll-step.js';
import { CONDITION } from '../api/status-names.js';
import { RetryGate } from './runtime/retry-gate.js';
import { RollSlots } from './runtime/roll-slots.js';
import { reconcileCluster, type PassMemory, type ReconcileTiming } from './reconcile/reconcile-cluster.js';
import { reconcileImages } from './reconcile/reconcile-images.js';
import type { BackoffOptions } from './runtime/backoff.js';
import type { Clock } from './runtime/clock.js';
import type { Logger } from './runtime/log.js';
import type { ControllerMetrics } from './runtime/metrics.js';
import { WorkQueue } from './runtime/work-queue.js';
import type { OpenSession } from './valkey/node-session.js';
import { MeteringPass } from './reconcile/metering-pass.js';
import { observedPeakBytes } from './reconcile/metering-shape.js';
import { METERING_RELEASE_ANNOTATION, type ValkeyMeteringRecord } from '../api/valkey-metering-record.js';
import type { EndpointOf } from './valkey/observe-node.js';

export interface ControllerOptions {
  client: KubeClient;
  /**
   * Watch ValkeyClusters, Pods, StatefulSets and ConfigMaps in these namespaces only, one watch
   * each (a namespaced install: a Role in each is enough); absent or empty: all namespaces.
   */
  namespaces?: readonly string[];
  policy: VersionPolicy;
  endpointOf: EndpointOf;
  open: OpenSession;
  clusterDomain: string;
  /** Clusters reconciled at once; one slow cluster holds one slot. */
  concurrency: number;
  timing: ReconcileTiming;
  watchBackoff: BackoffOptions;
  retryBackoff: BackoffOptions;
  watchTimeoutSeconds?: number;
  clock: Clock;
  log: Logger;
  metrics: ControllerMetrics;
  /** Clusters that may roll at once, fleet-wide (default 1). */
  maxConcurrentRolls?: number;
  /** Slots moved per rebalance step, one step per pass (default: the planner's 64). */
  rebalanceBatchSlots?: number;
  /** `auto` (default): atomic slot migration where every primary has it; `classic`: never. */
  slotMigration?: 'auto' | 'classic';
  /** How often an autoscaled cluster's nodes are sampled (default 30 s). */
  sampleIntervalMs?: number;
  /** Usage metering (docs/metering.md): records in `namespace`, sampled every `sampleMs`; absent: off. */
  metering?: { namespace: string; sampleMs: number; checkpointMs?: number };
  /** Read each pod's Valkey metrics figures at most this often (--valkey-metrics-seconds); absent or 0: no per-pod Valkey metrics. */
  valkeyMetricsMs?: number;
}

/**
 * An unchanged record is written every fifth sample (5 min by default: 1,000 clusters are 3
 * writes a second, not 17); a change, a month end or a deletion at once. An interval with no write
 * for two samples past that had no controller watching: a gap.
 */
export function meteringPolicy(m: { sampleMs: number; checkpointMs?: number }) {
  const checkpointMs = m.checkpointMs ?? 5 * m.sampleMs;
  return { checkpointMs, gapMs: checkpointMs + 2 * m.sampleMs };
}

const IMAGES_KEY = 'images';
const METERING_KEY = 'metering';
/** The API server answers a GET with the object's metadata alone. */
const METADATA_ONLY = 'application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1';
const CLUSTER_PREFIX = 'cluster/';
const MANAGED_SELECTOR = `${LABELS.managedBy}=${MANAGED_BY}`;

/**
 * Informers feed one keyed work queue: every event is mapped to the ValkeyCluster it concerns
 * (or to the image-protection key), so a cluster is reconciled by one worker at a time and a
 * slow cluster never waits in front of another.
 */
export class Controller {
  private readonly clusters: NamespacedInformers<ApiObject>;
  private readonly pods: NamespacedInformers<Pod>;
  private readonly statefulSets: NamespacedInformers<StatefulSet>;
  private readonly configs: Informer<ApiObject>;
  private readonly configMaps: NamespacedInformers<ConfigMap>;
  private readonly events: EventRecorder;
  /** What passes remember (reconcile/reconcile-cluster.ts PassMemory): ACL retry pacing, "n of m" totals. */
  private readonly memory: PassMemory;
  /** What --max-concurrent-rolls counts: the clusters whose roll is in progress. */
  private readonly rollSlots: RollSlots;
  /** Clusters whose roll waits for a slot only; woken when a roll ends rather than polled. */
  private readonly rollWaiters = new Set<string>();
  /** Clusters this process saw rolling. */
  private readonly rolled = new Set<string>();
  private readonly images: Informer<ApiObject>;
  /**
   * Nodes. Not waited for: until it is filled, nothing is decided from where pods run
   * (reconcile/kube-facts.ts). Not started when the controller watches listed namespaces only (a
   * namespaced install has no Node access), and stopped for good on a 403 (RBAC without nodes).
   */
  private nodes: Informer<Node> | undefined;
  private readonly queue: WorkQueue;
  /** Usage metering (reconcile/metering-pass.ts): its records and its pass; absent when off. */
  private readonly metering: { records: Informer<ValkeyMeteringRecord & ApiObject>; pass: MeteringPass } | undefined;

  constructor(private readonly opts: ControllerOptions) {
    const options = <T extends ApiObject>(name: string, path: string, onEvent: (e: InformerEvent<T>) => void, labelSelector?: string) => ({
      name,
      client: opts.client,
      path,
      clock: opts.clock,
      backoff: opts.watchBackoff,
      onEvent,
      onError: (e: InformerError) => this.onInformerError(e),
      ...(labelSelector ? { labelSelector } : {}),
      ...(opts.watchTimeoutSeconds ? { watchTimeoutSeconds: opts.watchTimeoutSeconds } : {}),
    });
    const informer = <T extends ApiObject>(...a: Parameters<typeof options<T>>) => new Informer<T>(options<T>(...a));
    const namespaced = <T extends ApiObject>(
      name: string,
      path: (namespace?: string) => string,
      onEvent: (e: InformerEvent<T>) => void,
      labelSelector?: string,
    ) => new NamespacedInformers<T>(opts.namespaces, (ns) => options<T>(ns ? `${name}/${ns}` : name, path(ns), onEvent, labelSelector));
    this.clusters = namespaced('valkeyclusters', paths.valkeyClusters, (e) => this.onClusterEvent(e));
    this.pods = namespaced<Pod>('pods', paths.pods, (e) => this.enqueueOwner(e.object), MANAGED_SELECTOR);
    this.statefulSets = namespaced<StatefulSet>('statefulsets', paths.statefulSets, (e) => this.enqueueOwner(e.object), MANAGED_SELECTOR);
    // A live change may touch only the ConfigMap (a new maxmemory, a rotated password).
    this.configMaps = namespaced<ConfigMap>('configmaps', paths.configMaps, (e) => this.enqueueOwner(e.object), MANAGED_SELECTOR);
    this.events = eventRecorder(opts.client, opts.clock, opts.log);
    this.rollSlots = new RollSlots(opts.maxConcurrentRolls ?? 1, () => this.rollingInStatus());
    this.memory = {
      aclRetry: new RetryGate(opts.clock, opts.retryBackoff),
      scalingTotals: new Map(),
      atomicFailures: new Map(),
      autoscale: { windows: new Map(), records: new Map() },
      writtenStatus: new Map(),
    };
    this.configs = informer('valkeyconfigs', paths.valkeyConfigs(), () => this.queue.add(IMAGES_KEY));
    this.images = informer('valkeyimages', paths.valkeyImages(), () => this.queue.add(IMAGES_KEY));
    // A controller told to watch some namespaces is a namespaced install: it asks nothing cluster-wide.
    this.nodes = opts.namespaces?.length ? undefined : informer<Node>('nodes', paths.nodes(), (e) => this.onNodeEvent(e));
    this.metering = opts.metering ? this.meteringPass(opts.metering, informer) : undefined;
    this.queue = new WorkQueue({
      concurrency: opts.concurrency,
      clock: opts.clock,
      retry: opts.retryBackoff,
      handler: (key) => this.handle(key),
      onError: (key, error, retryInMs) => {
        opts.metrics.reconcileErrors.inc({ kind: 'api' });
        opts.log.warn('reconcile failed; retrying', { key, error, retryInMs });
      },
    });
  }

  start(): void {
    for (const i of this.informers()) i.start();
    this.nodes?.start();
    if (this.metering) this.queue.add(METERING_KEY);
  }

  async stop(): Promise<void> {
    await Promise.all([...this.informers(), ...(this.nodes ? [this.nodes] : [])].map((i) => i.stop()));
    await this.queue.shutdown();
  }

  hasSynced(): boolean {
    return this.informers().every((i) => i.hasSynced());
  }

  private informers(): Informer<ApiObject>[] {
    return [
      ...this.clusters.informers(),
      ...(this.pods.informers() as Informer<ApiObject>[]),
      ...(this.statefulSets.informers() as Informer<ApiObject>[]),
      ...(this.configMaps.informers() as Informer<ApiObject>[]),
      this.configs,
      this.images,
      ...(this.metering ? [this.metering.records as unknown as Informer<ApiObject>] : []),
    ];
  }

  private meteringPass(
    m: NonNullable<ControllerOptions['metering']>,
    informer: <T extends ApiObject>(name: string, path: string, onEvent: (e: InformerEvent<T>) => void) => Informer<T>,
  ) {
    // A person's release annotation is acted on at once; the controller's own writes wake nothing.
    const records = informer<ValkeyMeteringRecord & ApiObject>('valkeymeteringrecords', paths.valkeyMeteringRecords(m.namespace), (e) => {
      if (e.object.metadata.annotations?.[METERING_RELEASE_ANNOTATION] === 'true') this.queue.add(METERING_KEY);
    });
    const pass = new MeteringPass({
      namespace: m.namespace,
      clusters: () => this.clusters.list(),
      statefulSets: (ns, name) => this.ofCluster(this.statefulSets, ns, name),
      configMap: (ns, name) => this.configMaps.get(`${ns}/${name}`),
      records: () => records.list(),
      client: this.opts.client,
      paths: {
        records: paths.valkeyMeteringRecords,
        record: paths.valkeyMeteringRecord,
        recordStatus: paths.valkeyMeteringRecordStatus,
        cluster: paths.valkeyCluster,
      },
      policy: meteringPolicy(m),
      clock: this.opts.clock,
      log: this.opts.log.child({ component: 'metering' }),
      // What the clusters' passes last read of each node (only while --valkey-metrics-seconds is above 0).
      observedPeak: (ns, name) => observedPeakBytes(this.memory.valkeyStats?.get(`${ns}/${name}`)?.values() ?? []),
    });
    return { records, pass };
  }

  private onInformerError(e: InformerError): void {
    if (e.informer === 'nodes' && isApiError(e.error, 403)) {
      const nodes = this.nodes;
      this.nodes = undefined;
      void nodes?.stop();
      this.opts.log.info(
        'Nodes cannot be listed (403): shards lead from ordinal 0, and a takeover without the vote waits until the dead primary pod is removed or re-created',
        {
          error: e.error.message,
        },
      );
      return;
    }
    this.opts.metrics.watchErrors.inc({ phase: e.phase, reason: e.reason, resource: e.informer });
    this.opts.log.warn('list/watch failed', { resource: e.informer, phase: e.phase, error: e.error, retryInMs: e.retryInMs });
  }

  /** Status writes (ours) do not change the generation; only spec changes and arrivals matter. */
  private onClusterEvent(e: InformerEvent<ApiObject>): void {
    // A person acknowledging lost data (an annotation) changes no generation, and is looked at at once.
    const ack = (o: ApiObject | undefined) => o?.metadata.annotations?.[ANNOTATIONS.dataLossAcknowledged];
    // A deletion is closed in the metering record at once (its finalizer holds the cluster until then).
    if (this.metering && e.object.metadata.deletionTimestamp && !e.old?.metadata.deletionTimestamp) this.queue.add(METERING_KEY);
    if (e.type === 'modified' && e.old?.metadata.generation === e.object.metadata.generation && ack(e.old) === ack(e.object)) return;
    this.queue.add(CLUSTER_PREFIX + objectKey(e.object));
  }

  /** A Node that went (Not)Ready, got or lost the out-of-service taint, was cordoned or uncordoned, or was deleted: the clusters with pods on it. */
  private onNodeEvent(e: InformerEvent<Node>): void {
    if (e.type === 'modified' && e.old) {
      const before = nodeFacts(e.old);
      const after = nodeFacts(e.object);
      if (
        before.ready === after.ready &&
        before.outOfService === after.outOfService &&
        before.zone === after.zone &&
        before.cordoned === after.cordoned
      )
        return;
    }
    const seen = new Set<string>();
    for (const pod of this.pods.list()) {
      if (pod.spec?.nodeName !== e.object.metadata.name) continue;
      const cluster = pod.metadata.labels?.[LABELS.cluster];
      const key = `${pod.metadata.namespace}/${cluster}`;
      if (cluster && !seen.has(key)) {
        seen.add(key);
        this.queue.add(CLUSTER_PREFIX + key);
      }
    }
  }

  private enqueueOwner(o: ApiObject): void {
    const cluster = o.metadata.labels?.[LABELS.cluster];
    if (cluster && o.metadata.namespace) this.queue.add(`${CLUSTER_PREFIX}${o.metadata.namespace}/${cluster}`);
  }

  private ofCluster<T extends ApiObject>(informers: NamespacedInformers<T>, namespace: string, cluster: string): T[] {
    return informers.inNamespace(namespace).filter((o) => o.metadata.labels?.[LABELS.cluster] === cluster);
  }

  private async handle(key: string): Promise<{ requeueAfterMs?: number }> {
    // Reconciling before every cache is full would report pods missing that merely are not listed yet.
    if (!this.hasSynced()) return { requeueAfterMs: 100 };
    if (key === METERING_KEY && this.metering) return this.runMetering(this.metering.pass);
    const kind = key === IMAGES_KEY ? 'images' : 'cluster';
    const pass = this.opts.metrics.reconcileSeconds.startTimer({ kind });
    try {
      const result = kind === 'images' ? await this.reconcileImages() : await this.reconcileCluster(key.slice(CLUSTER_PREFIX.length));
      this.opts.metrics.reconciles.inc({ kind, result: 'ok' });
      pass({ result: 'ok' });
      return result;
    } catch (e) {
      this.opts.metrics.reconciles.inc({ kind, result: 'error' });
      pass({ result: 'error' });
      throw e;
    }
  }

  private async runMetering(pass: MeteringPass): Promise<{ requeueAfterMs: number }> {
    const timer = this.opts.metrics.reconcileSeconds.startTimer({ kind: 'metering' });
    const outcome = await pass.run();
    timer({ result: outcome.refused ? 'error' : 'ok' });
    if (outcome.written || outcome.released) this.opts.log.debug('metering records written', { ...outcome });
    return { requeueAfterMs: this.opts.metering?.sampleMs ?? 60_000 };
  }

  private reconcileImages() {
    const { client, log, metrics } = this.opts;
    return reconcileImages({
      images: () => this.images.list(),
      configs: () => this.configs.list(),
      patchFinalizers: async (image, resourceVersion, finalizers) => {
        await client.request('PATCH', paths.valkeyImage(image), {
          body: { metadata: { resourceVersion, finalizers } },
          contentType: 'application/merge-patch+json',
        });
      },
      events: this.events,
      log,
      metrics,
    });
  }

  /** Through the Eviction API, so PodDisruptionBudgets hold: 429 is a refusal, not an error. */
  private async evict(namespace: string, pod: string): Promise<EvictionResult> {
    try {
      // The UID of the pod this pass decided on: a pod re-created under the same name since is not evicted.
      const uid = this.pods.get(`${namespace}/${pod}`)?.metadata.uid;
      await this.opts.client.request('POST', paths.eviction(namespace, pod), {
        body: {
          apiVersion: 'policy/v1',
          kind: 'Eviction',
          metadata: { name: pod, namespace },
          ...(uid ? { deleteOptions: { preconditions: { uid } } } : {}),
        },
      });
      return 'evicted';
    } catch (e) {
      if (isApiError(e, 429)) return 'refused';
      if (isApiError(e, 404)) return 'gone';
      throw e;
    }
  }

  /** A Secret's metadata only (PartialObjectMetadata): whether it exists, never what it holds. */
  private async secretExists(namespace: string, name: string): Promise<boolean> {
    try {
      await this.opts.client.request('GET', paths.secret(namespace, name), { accept: METADATA_ONLY });
      return true;
    } catch (e) {
      if (isApiError(e, 404)) return false;
      throw e;
    }
  }

  /** The clusters whose status says their roll is in progress (what a controller just started knows). */
  /** Whether the cache's status of `key` says its roll is in progress. */
  private rollingInStatusHas(key: string): boolean {
    const conditions = (this.clusters.get(key) as { status?: { conditions?: { type: string; status: string }[] } } | undefined)?.status
      ?.conditions;
    return conditions?.some((x) => x.type === CONDITION.rollInProgress && x.status === 'True') === true;
  }

  private *rollingInStatus(): Iterable<string> {
    for (const c of this.clusters.list()) {
      const conditions = (c as { status?: { conditions?: { type: string; status: string }[] } }).status?.conditions;
      if (conditions?.some((x) => x.type === CONDITION.rollInProgress && x.status === 'True')) yield objectKey(c);
    }
  }

  private async reconcileCluster(key: string) {
    const o = this.opts;
    const result = await reconcileCluster(key, {
      api: {
        cluster: (k) => this.clusters.get(k),
        pods: (ns, name) => this.ofCluster(this.pods, ns, name),
        statefulSets: (ns, name) => this.ofCluster(this.statefulSets, ns, name),
        configMap: (ns, name) => this.configMaps.get(`${ns}/${name}`),
        readSecret: (ns, name) => o.client.request<Secret>('GET', paths.secret(ns, name)),
        secretExists: (ns, name) => this.secretExists(ns, name),
        patchStatus: async (ns, name, status: ValkeyClusterStatus) => {
          await o.client.request('PATCH', paths.valkeyClusterStatus(ns, name), {
            body: { status },
            contentType: 'application/merge-patch+json',
          });
        },
        evict: (ns, pod) => this.evict(ns, pod),
        deleteShard: (ns, cluster, shard) => deleteRetiredShard(this.opts.client, ns, cluster, shard),
        ...(this.nodes?.hasSynced() ? { node: (name: string) => this.nodes?.get(name) } : {}),
        events: this.events,
      },
      nodes: { open: o.open, policy: o.policy, endpointOf: o.endpointOf, clusterDomain: o.clusterDomain },
      rollSlots: this.rollSlots,
      memory: this.memory,
      ...(o.rebalanceBatchSlots ? { batchSlots: o.rebalanceBatchSlots } : {}),
      ...(o.slotMigration ? { slotMigration: o.slotMigration } : {}),
      ...(o.sampleIntervalMs ? { sampleIntervalMs: o.sampleIntervalMs } : {}),
      ...(o.valkeyMetricsMs ? { valkeyMetricsMs: o.valkeyMetricsMs } : {}),
      clock: o.clock,
      log: o.log,
      metrics: o.metrics,
      timing: o.timing,
    });
    if (result.waitsForRollSlot) this.rollWaiters.add(key);
    else this.rollWaiters.delete(key);
    if (!result.rolling) {
      this.rollSlots.release(key);
      // A roll that finished (or a cluster whose status said it rolled) may have freed a slot:
      // the clusters waiting for one are looked at now rather than on their resync.
      if (this.rolled.delete(key) || this.rollingInStatusHas(key)) for (const k of this.rollWaiters) this.queue.add(CLUSTER_PREFIX + k);
    } else this.rolled.add(key);
    return result;
  }
}
