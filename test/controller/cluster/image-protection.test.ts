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

describe('a referenced ValkeyImage being deleted', () => {
  const configs = [
    { name: 'standard', imageRef: 'valkey-9-0' },
    { name: 'large', imageRef: 'valkey-9-0' },
    { name: 'other', imageRef: 'valkey-9-1' },
  ];

  it('is held, and the Event names the configs that hold it and how to recover', async () => {
    const { heldDeletions, heldDeletionMessage } = await import('../../../src/controller/cluster/image-finalizers.js');
    const held = heldDeletions([image('valkey-9-0', [IMAGE_FINALIZER], true), image('valkey-9-1', [IMAGE_FINALIZER])], configs);
    expect(held).toEqual([{ image: 'valkey-9-0', referencedBy: ['large', 'standard'] }]);
    const message = heldDeletionMessage(held[0]!);
    expect(message).toContain('ValkeyConfig large, standard still reference it (spec.imageRef)');
    expect(message).toContain('re-applying the ValkeyImage does not bring it back');
    expect(message).toContain('point those configs at another image');
  });

  it('reconcileImages records one Warning DeletionHeld Event on the image, in namespace default', async () => {
    const { reconcileImages } = await import('../../../src/controller/reconcile/reconcile-images.js');
    const { controllerMetrics } = await import('../../../src/controller/runtime/metrics.js');
    const recorded: unknown[] = [];
    const obj = (name: string, deleting: boolean) => ({
      apiVersion: 'valkey.gomomento.com/v1alpha1',
      kind: 'ValkeyImage',
      metadata: {
        name,
        uid: `uid-${name}`,
        resourceVersion: '3',
        finalizers: [IMAGE_FINALIZER],
        ...(deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}),
      },
    });
    await reconcileImages({
      images: () => [obj('valkey-9-0', true), obj('valkey-9-1', false)],
      configs: () =>
        configs.map((c) => ({ apiVersion: 'v', kind: 'ValkeyConfig', metadata: { name: c.name }, spec: { imageRef: c.imageRef } })),
      patchFinalizers: async () => {},
      events: { record: (...args: unknown[]) => recorded.push(args) },
      log: {
        info() {},
        warn() {},
        error() {},
        debug() {},
        child() {
          return this;
        },
      } as never,
      metrics: controllerMetrics(),
    });
    expect(recorded).toEqual([
      [
        {
          apiVersion: 'valkey.gomomento.com/v1alpha1',
          kind: 'ValkeyImage',
          namespace: 'default',
          name: 'valkey-9-0',
          uid: 'uid-valkey-9-0',
        },
        'Warning',
        'DeletionHeld',
        expect.stringContaining('ValkeyConfig large, standard still reference it'),
      ],
    ]);
  });
});
