import { describe, expect, it } from 'vitest';
import { isLiveSetting } from '../../src/api/valkey-table.js';

// The one question render, plan and controller ask of the settings table: does CONFIG SET apply it?
describe('isLiveSetting', () => {
  it.each([
    ['maxmemory', undefined, true],
    ['MAXMEMORY-POLICY', '9.0.1', true],
    // An alias answers for its setting.
    ['hash-max-ziplist-entries', '9.0.1', true],
    ['slaveof', '9.0.1', false],
    ['databases', '9.0.1', false],
    ['tcp-backlog', '9.0.1', false],
    // Live since 9.0 (hand-recorded): restart-only on the releases before it.
    ['io-threads', '9.0.1', true],
    ['io-threads', undefined, true],
    ['io-threads', '8.1.2', false],
    // Protected: CONFIG SET refuses it unless enable-protected-configs allows it.
    ['dir', '9.0.1', false],
    // Read from the file at start-up only.
    ['loadmodule', '9.0.1', false],
    // Added after the builds here, live.
    ['commandlog-execution-slower-than', '9.0.1', true],
  ] as const)('%s on %s: %s', (name, version, live) => {
    expect(isLiveSetting(name, version)).toBe(live);
  });

  it("does not know a module's or a newer release's setting", () => {
    expect(isLiveSetting('my-module-frobnicate', '9.0.1')).toBeUndefined();
  });
});
