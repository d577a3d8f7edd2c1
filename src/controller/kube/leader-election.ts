import { microTime, type Clock } from '../runtime/clock.js';
import type { Logger } from '../runtime/log.js';
import { isApiError, type KubeClient } from './client.js';
import { paths } from './paths.js';
import type { Lease } from './types.js';

export interface LeaderElectionOptions {
  client: KubeClient;
  namespace: string;
  name: string;
  identity: string;
  /** How long a lease holds without renewal before others may take it. */
  leaseDurationSeconds: number;
  /** A leader that could not renew for this long stops leading. */
  renewDeadlineMs: number;
  /** How often to try to acquire or renew. */
  retryPeriodMs: number;
  clock: Clock;
  log: Logger;
  onStartedLeading: () => void;
  onStoppedLeading: () => void;
}

/**
 * Leader election on a coordination.k8s.io Lease, the way client-go does it: a lease is taken
 * over only when its record has not changed for a whole lease duration *as observed locally*, so
 * clock skew between replicas does not matter. Stopping releases the lease for a fast handover.
 */
export class LeaderElector {
  private leading = false;
  private observed = '';
  private observedAt = 0;
  private lastRenew = 0;
  private readonly abort = new AbortController();
  private loop: Promise<void> | undefined;

  constructor(private readonly opts: LeaderElectionOptions) {}

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    this.loop ??= this.run();
  }

  async stop(): Promise<void> {
    this.abort.abort();
    await this.loop;
    if (this.leading) {
      await this.release().catch((e: unknown) => this.opts.log.warn('could not release the leader lease', { error: e }));
      this.setLeading(false);
    }
  }

  private setLeading(value: boolean): void {
    if (value === this.leading) return;
    this.leading = value;
    this.opts.log.info(value ? 'became leader' : 'stopped leading', {
      lease: `${this.opts.namespace}/${this.opts.name}`,
      identity: this.opts.identity,
    });
    if (value) this.opts.onStartedLeading();
    else this.opts.onStoppedLeading();
  }

  private async run(): Promise<void> {
    const { clock } = this.opts;
    while (!this.abort.signal.aborted) {
      let ok = false;
      try {
        ok = await this.tryAcquireOrRenew();
      } catch (e) {
        this.opts.log.warn('leader election attempt failed', { error: e });
      }
      if (this.abort.signal.aborted) break;
      if (ok) {
        this.lastRenew = clock.now();
        this.setLeading(true);
      } else if (this.leading && clock.now() - this.lastRenew > this.opts.renewDeadlineMs) {
        this.setLeading(false);
      }
      await clock.sleep(this.opts.retryPeriodMs, this.abort.signal);
    }
  }

  private path(): string {
    return paths.lease(this.opts.namespace, this.opts.name);
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const { client, identity, clock } = this.opts;
    const now = clock.now();
    let lease: Lease;
    try {
      lease = await client.request<Lease>('GET', this.path(), { timeoutMs: this.opts.renewDeadlineMs });
    } catch (e) {
      if (!isApiError(e, 404)) throw e;
      await client.request('POST', paths.leases(this.opts.namespace), {
        body: {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: { name: this.opts.name, namespace: this.opts.namespace },
          spec: {
            holderIdentity: identity,
            leaseDurationSeconds: this.opts.leaseDurationSeconds,
            acquireTime: microTime(now),
            renewTime: microTime(now),
            leaseTransitions: 0,
          },
        },
        timeoutMs: this.opts.renewDeadlineMs,
      });
      return true;
    }
    const spec = lease.spec ?? {};
    const record = JSON.stringify([spec.holderIdentity, spec.renewTime, spec.leaseDurationSeconds]);
    if (record !== this.observed) {
      this.observed = record;
      this.observedAt = now;
    }
    const holder = spec.holderIdentity ?? '';
    const duration = (spec.leaseDurationSeconds ?? this.opts.leaseDurationSeconds) * 1000;
    if (holder !== '' && holder !== identity && this.observedAt + duration > now) return false;
    const takingOver = holder !== identity;
    const updated: Lease = {
      ...lease,
      spec: {
        ...spec,
        holderIdentity: identity,
        leaseDurationSeconds: this.opts.leaseDurationSeconds,
        renewTime: microTime(now),
        ...(takingOver ? { acquireTime: microTime(now), leaseTransitions: (spec.leaseTransitions ?? 0) + 1 } : {}),
      },
    };
    // PUT carries metadata.resourceVersion, so two candidates racing cannot both win (409).
    await client.request('PUT', this.path(), { body: updated, timeoutMs: this.opts.renewDeadlineMs });
    return true;
  }

  private async release(): Promise<void> {
    const lease = await this.opts.client.request<Lease>('GET', this.path());
    if (lease.spec?.holderIdentity !== this.opts.identity) return;
    const now = microTime(this.opts.clock.now());
    await this.opts.client.request('PUT', this.path(), {
      body: { ...lease, spec: { ...lease.spec, holderIdentity: null, leaseDurationSeconds: 1, renewTime: now, acquireTime: now } },
    });
  }
}
