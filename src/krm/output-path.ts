import { CLUSTER_NAME_MAX, DNS1035_LABEL, isNamespaceName } from '../api/index.js';

const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;

/**
 * Where kpt writes a cluster's objects: `<outputDir>/<namespace>/<name>.yaml`. The parts are
 * validated where they are read; this checks them again where they become a path, so a gap there
 * can never write a file outside the output directory. Undefined when a part is not safe.
 */
export function outputPath(outputDir: string, namespace: string, name: string): string | undefined {
  const dirOk = outputDir.split('/').every((s) => SEGMENT.test(s) && s !== '..');
  const nameOk = DNS1035_LABEL.test(name) && name.length <= CLUSTER_NAME_MAX;
  return dirOk && isNamespaceName(namespace) && nameOk ? `${outputDir}/${namespace}/${name}.yaml` : undefined;
}
