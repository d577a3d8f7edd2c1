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
    // Live on 9.1.2 (8.0.1 needed a restart; every supported version is 9.0 or later).
    ['io-threads', '9.0.1', true],
    ['io-threads', undefined, true],
    // Added by 9.1 (hand-recorded): a 9.0.x server does not know it at all.
    ['tls-auto-reload-interval', '9.1.0', true],
    ['tls-auto-reload-interval', '9.0.3', undefined],
    // Deprecated on 9.1.2: read from the file and ignored, and CONFIG SET refuses it.
    ['dynamic-hz', '9.1.2', false],
    // Protected: CONFIG SET refuses it unless enable-protected-configs allows it.
    ['dir', '9.0.1', false],
    // Read from the file at start-up only.
    ['loadmodule', '9.0.1', false],
    // Added after 8.0.1, live on 9.1.2.
    ['commandlog-execution-slower-than', '9.0.1', true],
  ] as const)('%s on %s: %s', (name, version, live) => {
    expect(isLiveSetting(name, version)).toBe(live);
  });

  it("does not know a module's or a newer release's setting", () => {
    expect(isLiveSetting('my-module-frobnicate', '9.0.1')).toBeUndefined();
  });
});
