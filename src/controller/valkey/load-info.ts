import { parseInfo } from './info.js';
import { parseMemoryInfo } from './memory-info.js';
import type { NodeLoad } from '../cluster/load-window.js';

const COUNTERS = ['used_cpu_sys', 'used_cpu_user', 'total_net_input_bytes', 'total_net_output_bytes'] as const;

/**
 * `INFO memory cpu stats` (the autoscaler's sample, cluster/load-window.ts NodeLoad) into its figures; undefined when a figure it needs is missing, negative or
 * not a number (a sample the autoscaler cannot trust is no sample: the window does not fill).
 */
export function parseLoadInfo(text: string): NodeLoad | undefined {
  const memory = parseMemoryInfo(text);
  if (!memory) return undefined;
  const fields = parseInfo(text);
  const values: number[] = [];
  for (const name of COUNTERS) {
    const raw = fields.get(name);
    const n = raw === undefined || raw.trim() === '' ? Number.NaN : Number(raw);
    if (!Number.isFinite(n) || n < 0) return undefined;
    values.push(n);
  }
  const [sys, user, input, output] = values as [number, number, number, number];
  return { ...memory, cpuSeconds: sys + user, netBytes: input + output };
}
