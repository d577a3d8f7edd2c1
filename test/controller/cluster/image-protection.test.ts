import { describe, expect, it } from 'vitest';
import { IMAGE_FINALIZER, planImageFinalizers, type ImageFacts } from '../../../src/controller/cluster/image-finalizers.js';

const image = (name: string, finalizers: string[] = [], deleting = false): ImageFacts => ({
  name,
  resourceVersion: '7',
  finalizers,
  deleting,
});

describe('planImageFinalizers', () => {
  it('protects a referenced image, keeping other finalizers', () => {
    expect(
      planImageFinalizers(
        [image('valkey-9-0', ['example.com/keep'])],
        [
          { name: 'standard', imageRef: 'valkey-9-0' },
          { name: 'large', imageRef: 'valkey-9-0' },
        ],
      ),
    ).toEqual([
      { image: 'valkey-9-0', resourceVersion: '7', finalizers: ['example.com/keep', IMAGE_FINALIZER], referencedBy: ['large', 'standard'] },
    ]);
  });

  it('releases an image once no config references it, even while it is being deleted', () => {
    expect(
      planImageFinalizers([image('old', [IMAGE_FINALIZER, 'example.com/keep'], true)], [{ name: 'standard', imageRef: 'valkey-9-0' }]),
    ).toEqual([{ image: 'old', resourceVersion: '7', finalizers: ['example.com/keep'], referencedBy: [] }]);
  });

  it.each([
    ['already protected and referenced', image('a', [IMAGE_FINALIZER]), [{ name: 'c', imageRef: 'a' }]],
    ['unprotected and unreferenced', image('a'), [{ name: 'c' }]],
    // The API server refuses new finalizers on an object being deleted; nothing to do.
    ['being deleted before it was ever protected', image('a', [], true), [{ name: 'c', imageRef: 'a' }]],
  ])('changes nothing when %s', (_what, img, configs) => {
    expect(planImageFinalizers([img], configs)).toEqual([]);
  });

  it('counts only direct imageRef references: a config inheriting through baseRef is covered by its base', () => {
    expect(planImageFinalizers([image('a')], [{ name: 'child' }])).toEqual([]);
  });
});
