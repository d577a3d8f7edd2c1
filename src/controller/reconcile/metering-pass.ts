import { API_VERSION } from '../../api/group.js';
import {
  CLOSED_REASON,
  METERING_CLUSTER_FINALIZER,
  METERING_LABELS,
  METERING_RECORD_FINALIZER,
  METERING_RECORD_KIND,
  METERING_RELEASE_ANNOTATION,
  meteringRecordName,
  type MeteringRecordStatus,
  type ValkeyMeteringRecord,
} from '../../api/valkey-metering-record.js';
import { advanceMetering, closeGone, lowers, nextMonthRecord, type MeteringPolicy, type RecordWrite } from '../cluster/metering.js';
import { isApiError, type KubeClient } from '../kube/client.js';
import type { ApiObject, ConfigMap, StatefulSet } from '../kube/types.js';
import type { Clock } from '../runtime/clock.js';
import type { Logger } from '../runtime/log.js';
import { mapLimit } from '../runtime/map-limit.js';
import { highestPeak, provisionedShape } from './metering-shape.js';

/**
 * The metering pass, I/O only: once per sample period, over every ValkeyCluster in the caches,
 * carry its open record to now (cluster/metering.ts decides what to write) and write what is due.
 * It touches no Valkey node and runs apart from the clusters' passes, so it adds nothing to them.
 * The records are the state: a new process (a restart, a new leader) reads them from its cache and
 * goes on from each one's lastSampleAt.
 */

export interface MeteringPaths {
  records: (namespace: string) => string;
  record: (namespace: string, name: string) => string;
  recordStatus: (namespace: string, name: string) => string;
  cluster: (namespace: string, name: string) => string;
}

export interface MeteringDeps {
  /** Where records live: the controller's namespace. */
  namespace: string;
  clusters(): readonly ApiObject[];
  statefulSets(namespace: string, cluster: string): StatefulSet[];
  configMap(namespace: string, name: string): ConfigMap | undefined;
  records(): readonly ValkeyMeteringRecord[];
  client: KubeClient;
  paths: MeteringPaths;
  policy: MeteringPolicy;
  clock: Clock;
  log: Logger;
  /** The highest used_memory_peak of a cluster's nodes, for clusters with neither resources.memory nor maxmemory. */
  observedPeak?(namespace: string, cluster: string): number | undefined;
  /** Writes at once (default 8). */
  concurrency?: number;
}

export interface MeteringOutcome {
  written: number;
  created: number;
  closed: number;
  released: number;
  refused: number;
}

const mountedConfigMap = (sets: readonly StatefulSet[]): string | undefined => {
  for (const s of sets) for (const v of s.spec?.template?.spec?.volumes ?? []) if (v.configMap?.name) return v.configMap.name;
  return undefined;
};

/** A record's status as this process last wrote it or as the cache holds it, whichever is further on (the cache may lag a write). */
type Known = Map<string, ValkeyMeteringRecord>;

export class MeteringPass {
  /** What this process wrote, by record name: the cache may not have it yet. */
  private readonly written: Known = new Map();

  constructor(private readonly deps: MeteringDeps) {}

  async run(): Promise<MeteringOutcome> {
    const d = this.deps;
    const out: MeteringOutcome = { written: 0, created: 0, closed: 0, released: 0, refused: 0 };
    const records = this.current();
    const byUid = new Map<string, ValkeyMeteringRecord[]>();
    for (const r of records) {
      const uid = r.spec.cluster.uid;
      byUid.set(uid, [...(byUid.get(uid) ?? []), r]);
    }
    const tasks: (() => Promise<void>)[] = [];
    const seen = new Set<string>();
    const nowMs = d.clock.now();
    for (const c of d.clusters()) {
      const uid = c.metadata.uid;
      const ns = c.metadata.namespace;
      if (!uid || !ns) continue;
      seen.add(uid);
      const open = openRecordOf(byUid.get(uid) ?? []);
      const sets = d.statefulSets(ns, c.metadata.name);
      const cm = mountedConfigMap(sets);
      const shape = provisionedShape(
        sets,
        cm ? d.configMap(ns, cm)?.data?.['valkey.conf'] : undefined,
        highestPeak(d.observedPeak?.(ns, c.metadata.name), open?.status?.memory),
      );
      const deletedAt = c.metadata.deletionTimestamp ? Date.parse(c.metadata.deletionTimestamp) : undefined;
      const writes = advanceMetering(
        open?.status ? { month: open.spec.month, status: open.status } : undefined,
        { nowMs, shape, ...(deletedAt !== undefined ? { deletedAtMs: deletedAt } : {}) },
        d.policy,
      );
      const hasFinalizer = c.metadata.finalizers?.includes(METERING_CLUSTER_FINALIZER) ?? false;
      if (writes.length === 0 && (deletedAt === undefined ? hasFinalizer : !hasFinalizer)) continue;
      tasks.push(async () => {
        for (const w of writes) await this.write(c, w, byUid.get(uid) ?? [], out);
        if (deletedAt === undefined && !hasFinalizer) await this.setClusterFinalizer(c, true);
        if (deletedAt !== undefined && hasFinalizer) await this.setClusterFinalizer(c, false);
      });
    }
    for (const r of records) {
      // A cluster that left the cache without our deletion (its finalizer removed by hand): closed where last confirmed.
      if (r.status && !r.status.closed && !seen.has(r.spec.cluster.uid)) {
        const status = closeGone(r.status);
        if (status) tasks.push(() => this.patchStatus(r, status, out).then(() => void out.closed++));
      }
      if (
        r.status?.closed &&
        r.metadata.annotations?.[METERING_RELEASE_ANNOTATION] === 'true' &&
        r.metadata.finalizers?.includes(METERING_RECORD_FINALIZER)
      )
        tasks.push(() => this.release(r, out));
    }
    await mapLimit(tasks, d.concurrency ?? 8, async (t) => {
      try {
        await t();
      } catch (e) {
        // One record's failure (a conflict with a write the cache has not shown yet) waits for the next sample.
        d.log.warn('metering write failed; tried again at the next sample', { error: e });
      }
    });
    return out;
  }

  /** The cache's records, each replaced by this process's own later write where the cache lags. */
  private current(): ValkeyMeteringRecord[] {
    const out: ValkeyMeteringRecord[] = [];
    const names = new Set<string>();
    for (const r of this.deps.records()) {
      names.add(r.metadata.name);
      const mine = this.written.get(r.metadata.name);
      out.push(mine && further(mine.status, r.status) ? mine : r);
      if (mine && !further(mine.status, r.status)) this.written.delete(r.metadata.name);
    }
    for (const [name, r] of this.written) if (!names.has(name)) out.push(r);
    return out;
  }

  private async write(cluster: ApiObject, w: RecordWrite, existing: readonly ValkeyMeteringRecord[], out: MeteringOutcome): Promise<void> {
    const d = this.deps;
    const ns = cluster.metadata.namespace as string;
    const uid = cluster.metadata.uid as string;
    const name = meteringRecordName(ns, cluster.metadata.name, uid, w.month);
    let record = existing.find((r) => r.metadata.name === name);
    if (!record) {
      const body: ValkeyMeteringRecord = {
        apiVersion: API_VERSION,
        kind: METERING_RECORD_KIND,
        metadata: {
          name,
          namespace: d.namespace,
          labels: { [METERING_LABELS.namespace]: ns, [METERING_LABELS.cluster]: cluster.metadata.name },
          finalizers: [METERING_RECORD_FINALIZER],
        },
        spec: { cluster: { namespace: ns, name: cluster.metadata.name, uid }, month: w.month },
      };
      try {
        record = await d.client.request<ValkeyMeteringRecord>('POST', d.paths.records(d.namespace), { body });
        out.created++;
      } catch (e) {
        // Created by an earlier write whose answer was lost, or by another leader: go on from the server's copy.
        if (!isApiError(e, 409)) throw e;
        record = await d.client.request<ValkeyMeteringRecord>('GET', d.paths.record(d.namespace, name));
        if (record.status) return;
      }
    }
    await this.patchStatus(record, w.status, out);
    if (w.status.closed) out.closed++;
  }

  private async patchStatus(record: ValkeyMeteringRecord, status: MeteringRecordStatus, out: MeteringOutcome): Promise<void> {
    const refused = lowers(record.status, status);
    if (refused) {
      out.refused++;
      this.deps.log.error('metering record not written: the write would lower it', { record: record.metadata.name, refused });
      return;
    }
    // resourceVersion: a write based on an older copy (another leader's, a lagging cache) fails with 409, never overwrites.
    const written = await this.deps.client.request<ValkeyMeteringRecord>(
      'PATCH',
      this.deps.paths.recordStatus(this.deps.namespace, record.metadata.name),
      {
        body: { metadata: { resourceVersion: record.metadata.resourceVersion }, status },
        contentType: 'application/merge-patch+json',
      },
    );
    this.written.set(record.metadata.name, written);
    out.written++;
  }

  private async release(r: ValkeyMeteringRecord, out: MeteringOutcome): Promise<void> {
    const finalizers = (r.metadata.finalizers ?? []).filter((f) => f !== METERING_RECORD_FINALIZER);
    await this.deps.client.request('PATCH', this.deps.paths.record(this.deps.namespace, r.metadata.name), {
      body: { metadata: { resourceVersion: r.metadata.resourceVersion, finalizers } },
      contentType: 'application/merge-patch+json',
    });
    this.written.delete(r.metadata.name);
    out.released++;
  }

  /**
   * The ValkeyCluster's finalizer: added while it lives, removed once its record is closed at the
   * deletionTimestamp, so a deletion is counted to the second even when no controller runs then.
   */
  private async setClusterFinalizer(c: ApiObject, present: boolean): Promise<void> {
    const others = (c.metadata.finalizers ?? []).filter((f) => f !== METERING_CLUSTER_FINALIZER);
    const finalizers = present ? [...others, METERING_CLUSTER_FINALIZER] : others;
    try {
      await this.deps.client.request('PATCH', this.deps.paths.cluster(c.metadata.namespace as string, c.metadata.name), {
        body: { metadata: { resourceVersion: c.metadata.resourceVersion, finalizers } },
        contentType: 'application/merge-patch+json',
      });
    } catch (e) {
      // Gone already, or changed since the cache saw it: the next sample looks again.
      if (!isApiError(e, 404) && !isApiError(e, 409)) throw e;
    }
  }
}

/** The open record of an incarnation: not closed, latest month. */
function openRecordOf(records: readonly ValkeyMeteringRecord[]): ValkeyMeteringRecord | undefined {
  let open: ValkeyMeteringRecord | undefined;
  for (const r of records) if (r.status && !r.status.closed && (!open || r.spec.month > open.spec.month)) open = r;
  if (open) return open;
  // Every record closed: after a month end whose next record was never written, that record (new);
  // a record closed by the deletion ends the incarnation.
  const latest = [...records].filter((r) => r.status).sort((a, b) => (a.spec.month < b.spec.month ? 1 : -1))[0];
  if (latest?.status?.closedReason !== CLOSED_REASON.monthEnd) return latest;
  const next = nextMonthRecord({ month: latest.spec.month, status: latest.status });
  return { ...latest, metadata: { name: '' }, spec: { ...latest.spec, month: next.month }, status: next.status };
}

const further = (a: MeteringRecordStatus | undefined, b: MeteringRecordStatus | undefined): boolean =>
  !!a && (!b || Date.parse(a.lastSampleAt) > Date.parse(b.lastSampleAt) || (a.closed && !b.closed));
