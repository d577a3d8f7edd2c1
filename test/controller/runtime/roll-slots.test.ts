import { describe, expect, it } from 'vitest';
import { RollSlots } from '../../../src/controller/runtime/roll-slots.js';

describe('RollSlots: --max-concurrent-rolls, claimed rather than only checked', () => {
  it('two passes that both found the slot free: only the first to claim it rolls', () => {
    const slots = new RollSlots(1, () => []);
    // Both passes checked while gathering their facts, before either acted.
    expect(slots.free('a/one')).toBe(true);
    expect(slots.free('b/two')).toBe(true);
    expect(slots.claim('a/one', false)).toBe(true);
    expect(slots.claim('b/two', false)).toBe(false);
    expect(slots.free('b/two')).toBe(false);
    // The holder's own view: its slot is its own.
    expect(slots.free('a/one')).toBe(true);
    expect(slots.claim('a/one', false)).toBe(true);
    slots.release('a/one');
    expect(slots.claim('b/two', false)).toBe(true);
  });

  it('a roll under way keeps going even when the slots are all taken (it is never stopped half-way)', () => {
    const slots = new RollSlots(1, () => ['a/one']);
    expect(slots.claim('b/two', false)).toBe(false);
    expect(slots.claim('b/two', true)).toBe(true);
    expect(slots.free('c/three')).toBe(false);
  });

  it('a cluster whose status says RollInProgress holds a slot for a controller just started, until its pass says otherwise', () => {
    let inStatus = ['a/one'];
    const slots = new RollSlots(2, () => inStatus);
    expect(slots.claim('b/two', false)).toBe(true);
    expect(slots.claim('c/three', false)).toBe(false);
    inStatus = [];
    expect(slots.claim('c/three', false)).toBe(true);
    expect(slots.free('d/four')).toBe(false);
  });
});
