import type { ValkeyClusterStatus } from '../../api/index.js';
import { canonicalJson } from '../../api/canonical-json.js';

/** Whether the status a pass computed is already written: then it is not written again. */
export const statusEquals = (a: ValkeyClusterStatus | undefined, b: ValkeyClusterStatus): boolean =>
  a !== undefined && canonicalJson(a) === canonicalJson(b);
