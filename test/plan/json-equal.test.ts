import { describe, expect, it } from 'vitest';
import { jsonEqual } from '../../src/plan/json-equal.js';

describe('jsonEqual', () => {
  it.each([
    [{ a: 1, b: [1, 'x', null] }, { b: [1, 'x', null], a: 1 }, true],
    [{ a: 1 }, { a: 1, b: undefined }, true],
    [{ a: 1 }, { b: 1 }, false],
    [{ a: 1, c: 2 }, { a: 1, b: 2 }, false],
    [{ a: [1, 2] }, { a: [2, 1] }, false],
    [{ a: [] }, { a: {} }, false],
    [{ a: null }, { a: {} }, false],
    [{ a: '1' }, { a: 1 }, false],
    [[{ x: { y: 'z' } }], [{ x: { y: 'z' } }], true],
    [[{ x: { y: 'z' } }], [{ x: { y: 'w' } }], false],
  ])('%j vs %j: %s', (a, b, equal) => {
    expect(jsonEqual(a, b)).toBe(equal);
    expect(jsonEqual(b, a)).toBe(equal);
  });
});
