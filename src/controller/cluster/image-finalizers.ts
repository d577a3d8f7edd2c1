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
