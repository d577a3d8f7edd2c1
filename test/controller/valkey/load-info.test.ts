// The autoscaler's sample from one node (`INFO memory cpu stats`), read from a reply captured from
// Valkey 9.1.2 (test/fixtures/info/README.md), and refused when a figure cannot be trusted.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseLoadInfo } from '../../../src/controller/valkey/load-info.js';

const captured = readFileSync(new URL('../../fixtures/info/valkey-9.1.2-memory-cpu-stats.txt', import.meta.url), 'utf8');

describe('parseLoadInfo', () => {
  it('reads a Valkey 9.1.2 reply: memory against maxmemory, CPU seconds and network bytes as counters', () => {
    expect(parseLoadInfo(captured)).toEqual({
      usedBytes: 969624,
      keyBytes: expect.any(Number),
      maxmemoryBytes: 104857600,
      cpuSeconds: 0.029942,
      netBytes: 78,
    });
  });

  it('reads CRLF lines and a RESP3 verbatim prefix alike', () => {
    expect(parseLoadInfo(`txt:${captured.replaceAll('\n', '\r\n')}`)).toEqual(parseLoadInfo(captured));
  });

  it.each([
    ['used_cpu_user missing', (t: string) => t.replace(/^used_cpu_user:.*$/m, '')],
    ['used_cpu_sys not a number', (t: string) => t.replace(/^used_cpu_sys:.*$/m, 'used_cpu_sys:lots')],
    ['total_net_input_bytes negative', (t: string) => t.replace(/^total_net_input_bytes:.*$/m, 'total_net_input_bytes:-5')],
    ['total_net_output_bytes empty', (t: string) => t.replace(/^total_net_output_bytes:.*$/m, 'total_net_output_bytes:')],
    ['maxmemory missing (the memory figures are checked as for the shrink)', (t: string) => t.replace(/^maxmemory:.*$/m, '')],
    ['an empty reply', () => ''],
  ])('no sample when %s', (_name, edit) => {
    expect(parseLoadInfo(edit(captured))).toBeUndefined();
  });
});
