import { GROUP } from '../../api/group.js';
/**
 * ValkeyImage protection: an image that any ValkeyConfig names in `imageRef` carries a finalizer,
 * so a delete request only marks it; the finalizer goes when the last such config does, and the
 * API server then completes the delete. Pure: decides the finalizer lists, the caller patches.
 */
export const IMAGE_FINALIZER = `${GROUP}/referenced-by-config`;

export interface ImageFacts {
  name: string;
  resourceVersion: string;
  finalizers: readonly string[];
  deleting: boolean;
}

export interface ConfigFacts {
  name: string;
  imageRef?: string;
}

export interface FinalizerChange {
  image: string;
  resourceVersion: string;
  /** The complete new list (merge patches replace lists). */
  finalizers: string[];
  /** The configs that reference it (empty when releasing). */
  referencedBy: string[];
}

export function planImageFinalizers(images: readonly ImageFacts[], configs: readonly ConfigFacts[]): FinalizerChange[] {
  const users = new Map<string, string[]>();
  for (const c of configs) if (c.imageRef !== undefined) users.set(c.imageRef, [...(users.get(c.imageRef) ?? []), c.name]);
  const changes: FinalizerChange[] = [];
  for (const image of images) {
    const referencedBy = (users.get(image.name) ?? []).sort();
    const has = image.finalizers.includes(IMAGE_FINALIZER);
    // The API server refuses new finalizers on an object already being deleted.
    if (referencedBy.length > 0 && !has && !image.deleting) {
      changes.push({
        image: image.name,
        resourceVersion: image.resourceVersion,
        finalizers: [...image.finalizers, IMAGE_FINALIZER],
        referencedBy,
      });
    } else if (referencedBy.length === 0 && has) {
      changes.push({
        image: image.name,
        resourceVersion: image.resourceVersion,
        finalizers: image.finalizers.filter((f) => f !== IMAGE_FINALIZER),
        referencedBy,
      });
    }
  }
  return changes;
}

/** A delete request the finalizer holds: the image stays (with a deletionTimestamp) while these configs name it. */
export interface HeldDeletion {
  image: string;
  referencedBy: string[];
}

/** Images being deleted that configs still reference: what the Event on each says. Pure. */
export function heldDeletions(images: readonly ImageFacts[], configs: readonly ConfigFacts[]): HeldDeletion[] {
  return images
    .filter((i) => i.deleting && i.finalizers.includes(IMAGE_FINALIZER))
    .flatMap((i) => {
      const referencedBy = configs.flatMap((c) => (c.imageRef === i.name ? [c.name] : [])).sort();
      return referencedBy.length ? [{ image: i.name, referencedBy }] : [];
    });
}

/** The Event's message: who holds the image, and how to recover (a deletion cannot be undone). */
export function heldDeletionMessage(d: HeldDeletion): string {
  return (
    `ValkeyImage ${d.image} is being deleted but ValkeyConfig ${d.referencedBy.join(', ')} still reference it (spec.imageRef), so it stays, ` +
    'with a deletionTimestamp, and keeps serving them. A deletion cannot be undone: re-applying the ValkeyImage does not bring it back. ' +
    'To finish it, point those configs at another image; to keep this image, apply it again under a new name and point the configs at that one, ' +
    'and this one goes away once nothing references it'
  );
}
