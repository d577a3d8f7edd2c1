import type { ValkeyCluster } from '../../api/index.js';
import type { Clock } from '../runtime/clock.js';
import { rfc3339 } from '../runtime/clock.js';
import type { Logger } from '../runtime/log.js';
import type { KubeClient } from './client.js';
import { paths } from './paths.js';
import { inert, inertStrings } from '../runtime/inert.js';

/** The object an Event is about: the ValkeyCluster, so `kubectl describe` tells its story. */
export interface InvolvedObject {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid?: string;
}

/** A ValkeyCluster as the object its Events are about (with its UID, when it has one). */
export const involvedCluster = (cluster: ValkeyCluster): InvolvedObject => ({
  apiVersion: cluster.apiVersion,
  kind: 'ValkeyCluster',
  namespace: cluster.metadata.namespace as string,
  name: cluster.metadata.name,
  ...(typeof cluster.metadata.uid === 'string' ? { uid: cluster.metadata.uid } : {}),
});

export interface EventRecorder {
  /** Fire and forget: an Event that cannot be written is logged, never fails the reconcile. */
  record(about: InvolvedObject, type: 'Normal' | 'Warning', reason: string, message: string): void;
}

interface Seen {
  name: string;
  count: number;
  firstTimestamp: string;
}

/**
 * core/v1 Events, aggregated as kubectl's recorder does: the same reason and message about the
 * same object within `windowMs` bumps `count` and `lastTimestamp` of one Event instead of adding
 * another (a retried ACL load that keeps failing is one line in `kubectl describe`, with a count).
 */
export function eventRecorder(
  client: KubeClient,
  clock: Clock,
  log: Logger,
  component = 'valkey-status-sync',
  windowMs = 10 * 60_000,
): EventRecorder {
  const seen = new Map<string, Seen & { at: number }>();
  let serial = 0;
  const write = async (about: InvolvedObject, type: string, given: string, raw: string): Promise<void> => {
    // Events are read on terminals (kubectl describe): what a node said in them is inert. The
    // reason is a constant of ours (api/status-names.ts), made one inert line too, so no caller can
    // ever pass node text through it; 128 characters is what events.k8s.io/v1 allows.
    const message = inertStrings(raw, 1000);
    const reason = inert(given, 128);
    const key = `${about.namespace}/${about.name}\u0000${type}\u0000${reason}\u0000${message}`;
    const now = clock.now();
    const stamp = rfc3339(now);
    const before = seen.get(key);
    if (before && now - before.at < windowMs) {
      before.count += 1;
      before.at = now;
      await client.request('PATCH', paths.event(about.namespace, before.name), {
        body: { count: before.count, lastTimestamp: stamp },
        contentType: 'application/merge-patch+json',
      });
      return;
    }
    serial += 1;
    const name = `${about.name}.${now.toString(16)}${serial.toString(16)}`;
    await client.request('POST', paths.events(about.namespace), {
      body: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: { name, namespace: about.namespace },
        involvedObject: about,
        type,
        reason,
        message,
        source: { component },
        reportingComponent: component,
        firstTimestamp: stamp,
        lastTimestamp: stamp,
        count: 1,
      },
    });
    seen.set(key, { name, count: 1, firstTimestamp: stamp, at: now });
    if (seen.size > 10_000) seen.delete(seen.keys().next().value as string);
  };
  return {
    record(about, type, reason, message) {
      write(about, type, reason, message).catch((e: unknown) => log.warn('cannot write an Event', { reason, error: e }));
    },
  };
}
