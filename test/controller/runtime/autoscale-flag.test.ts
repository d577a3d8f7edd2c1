// --autoscale-sample-seconds: how often the autoscaler samples the nodes (issue 26).
import { describe, expect, it } from 'vitest';
import { parseOptions } from '../../../src/controller/main.js';

describe('--autoscale-sample-seconds', () => {
  it('defaults to the model operator’s 30 s, takes a whole number of seconds, refuses anything else', () => {
    expect(parseOptions([], {}).sampleIntervalMs).toBe(30_000);
    expect(parseOptions(['--autoscale-sample-seconds', '5'], {}).sampleIntervalMs).toBe(5_000);
    for (const bad of ['0', '-1', '1.5', 'often'])
      expect(() => parseOptions([`--autoscale-sample-seconds=${bad}`], {})).toThrow(
        `--autoscale-sample-seconds must be a positive whole number, got "${bad}"`,
      );
  });
});
