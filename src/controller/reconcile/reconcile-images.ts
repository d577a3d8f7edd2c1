import { heldDeletionMessage, heldDeletions, planImageFinalizers, type ConfigFacts, type ImageFacts } from '../cluster/image-finalizers.js';
import { API_VERSION } from '../../api/index.js';
import { EVENT } from '../../api/status-names.js';
import type { EventRecorder } from '../kube/event-recorder.js';
import type { ApiObject } from '../kube/types.js';
import type { Logger } from '../runtime/log.js';
import type { ControllerMetrics } from '../runtime/metrics.js';
import type { WorkResult } from '../runtime/work-queue.js';

export interface ImageReconcilerDeps {
  images(): ApiObject[];
  configs(): (ApiObject & { spec?: { imageRef?: string } })[];
  /** A merge patch of metadata.finalizers, guarded by resourceVersion (409 on a race, then retried). */
  patchFinalizers(image: string, resourceVersion: string, finalizers: string[]): Promise<void>;
  /** Where the Event about a held deletion goes (cluster-scoped objects' Events live in `default`). */
  events?: EventRecorder;
  log: Logger;
  metrics: ControllerMetrics;
}

/** Adds or releases the ValkeyImage finalizer so referenced images wait for their configs. */
export async function reconcileImages(deps: ImageReconcilerDeps): Promise<WorkResult> {
  const images: ImageFacts[] = deps.images().map((i) => ({
    name: i.metadata.name,
    resourceVersion: i.metadata.resourceVersion ?? '',
    finalizers: i.metadata.finalizers ?? [],
    deleting: i.metadata.deletionTimestamp !== undefined,
  }));
  const configs: ConfigFacts[] = deps.configs().map((c) => ({
    name: c.metadata.name,
    ...(typeof c.spec?.imageRef === 'string' ? { imageRef: c.spec.imageRef } : {}),
  }));
  for (const change of planImageFinalizers(images, configs)) {
    const adding = change.referencedBy.length > 0;
    await deps.patchFinalizers(change.image, change.resourceVersion, change.finalizers);
    deps.metrics.finalizerWrites.inc({ action: adding ? 'add' : 'release' });
    deps.log.info(adding ? 'protecting ValkeyImage' : 'releasing ValkeyImage', {
      image: change.image,
      ...(adding ? { referencedBy: change.referencedBy } : {}),
    });
  }
  for (const held of heldDeletions(images, configs)) {
    const uid = deps.images().find((i) => i.metadata.name === held.image)?.metadata.uid;
    deps.events?.record(
      { apiVersion: API_VERSION, kind: 'ValkeyImage', namespace: 'default', name: held.image, ...(uid ? { uid } : {}) },
      'Warning',
      EVENT.deletionHeld,
      heldDeletionMessage(held),
    );
  }
  return {};
}
