import { describeSplitFailure, splitValkeyArgs } from './contract/valkey-conf.js';

/**
 * Why Valkey would refuse `value` as the arguments of a directive line, or undefined. The value is
 * written after its name as it is (contract/valkey-conf.ts), so a value Valkey cannot split stops
 * every pod from starting ("Unbalanced quotes in configuration line"); a NUL or line break would
 * end the line early and start another directive.
 */
export function valkeyArgsError(value: string): string | undefined {
  if (/[\0\n\r]/.test(value)) return 'a value may not contain a line break or NUL (it would end the directive and start another)';
  const split = splitValkeyArgs(value);
  return split.ok ? undefined : describeSplitFailure(split.failure);
}
