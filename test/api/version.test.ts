import { describe, expect, it } from 'vitest';
import { AT_LEAST_FLOOR_PATTERN, FULL_VERSION_PATTERN, meetsVersionFloor, parseVersion, valkeyImageVersion } from '../../src/api/index.js';

describe('version parsing', () => {
  it.each(['9.0.1', '9.1.0', '10.0.0', '0.0.0', '255.255.255'])('accepts %s as a full version', (v) => {
    expect(parseVersion(v)).toBeDefined();
  });
  it.each(['9.0', '9', '9.0.1-rc1', 'v9.0.1', '09.0.1', '9.00.1', '9.0.01', '9.0.1 ', '', '9..1', '9.0.1.2'])('rejects %j', (v) => {
    expect(parseVersion(v)).toBeUndefined();
  });
});

describe('the version floor', () => {
  it.each([
    ['9.0.0', false],
    ['8.1.9', false],
    ['7.2.4', false],
    ['9.0.1', true],
    ['9.0.2', true],
    ['9.1.0', true],
    ['10.0.0', true],
    ['11.2.3', true],
  ])('%s meets the floor: %s', (v, ok) => {
    expect(meetsVersionFloor(parseVersion(v)!)).toBe(ok);
  });

  it('the CEL regular expressions agree with the TypeScript check on every version up to 12.12.12', () => {
    const full = new RegExp(FULL_VERSION_PATTERN);
    const floor = new RegExp(AT_LEAST_FLOOR_PATTERN);
    const disagreements: string[] = [];
    for (let a = 0; a <= 12; a++)
      for (let b = 0; b <= 12; b++)
        for (let c = 0; c <= 12; c++) {
          const v = `${a}.${b}.${c}`;
          const expected = meetsVersionFloor(parseVersion(v)!);
          if (!full.test(v) || floor.test(v) !== expected) disagreements.push(v);
        }
    expect(disagreements).toEqual([]);
    for (const bad of ['09.0.1', '9.0.01', '9.0.1-rc1', 'v10.0.0']) expect(full.test(bad)).toBe(false);
  });

  it('names the problem in the zod message', () => {
    const r = valkeyImageVersion().safeParse('9.0.0');
    expect(r.success).toBe(false);
    expect(r.error?.issues[0]?.message).toMatchInlineSnapshot(
      `"must be at least 9.0.1, the oldest Valkey release valkey-krm runs; got "9.0.0""`,
    );
    expect(valkeyImageVersion().safeParse('9.0').error?.issues[0]?.message).toMatchInlineSnapshot(
      `"must be a full MAJOR.MINOR.PATCH version such as 9.0.1 (no "v" prefix, pre-release suffix or leading zeros); got "9.0""`,
    );
  });
});
