// A container's environment and its command line, the way the kubelet builds them: env entries
// in order (each may use the ones before it), values from the downward API and from Secrets and
// ConfigMaps, then $(VAR) expansion of command and args with Kubernetes' rules.
import type { Container, KeyedBytes, Pod } from './pod.js';

export interface EnvSources {
  podIp: string;
  hostIp: string;
  /** A Secret's or ConfigMap's keys, or undefined when it does not exist. */
  secret(name: string): Promise<KeyedBytes | undefined>;
  configMap(name: string): Promise<KeyedBytes | undefined>;
}

/** Why the kubelet cannot start the container yet (it reports CreateContainerConfigError). */
export class ConfigError extends Error {}

function fieldValue(pod: Pod, path: string, src: EnvSources): string {
  switch (path) {
    case 'metadata.name':
      return pod.metadata.name;
    case 'metadata.namespace':
      return pod.metadata.namespace ?? 'default';
    case 'metadata.uid':
      return pod.metadata.uid;
    case 'spec.nodeName':
      return pod.spec.nodeName ?? '';
    case 'spec.serviceAccountName':
      return pod.spec.serviceAccountName ?? 'default';
    case 'status.podIP':
    case 'status.podIPs':
      return src.podIp;
    case 'status.hostIP':
    case 'status.hostIPs':
      return src.hostIp;
  }
  const label = /^metadata\.(labels|annotations)\['(.+)'\]$/.exec(path);
  if (label?.[1] !== undefined && label[2] !== undefined) return pod.metadata[label[1] as 'labels' | 'annotations']?.[label[2]] ?? '';
  throw new ConfigError(`unsupported fieldRef ${path}`);
}

/**
 * Kubernetes' expansion (k8s.io/kubernetes third_party/forked/golang/expansion): `$(NAME)` becomes
 * the variable's value when defined and stays as written when not; `$$` is an escaped `$`.
 */
export function expand(input: string, vars: ReadonlyMap<string, string>): string {
  let out = '';
  for (let i = 0; i < input.length; i++) {
    const c = input[i];
    if (c !== '$' || i + 1 >= input.length) {
      out += c;
      continue;
    }
    const next = input[i + 1];
    if (next === '$') {
      out += '$';
      i++;
      continue;
    }
    if (next === '(') {
      const close = input.indexOf(')', i + 2);
      if (close >= 0) {
        const name = input.slice(i + 2, close);
        const value = vars.get(name);
        out += value ?? `$(${name})`;
        i = close;
        continue;
      }
    }
    out += c;
  }
  return out;
}

export async function containerEnv(pod: Pod, container: Container, src: EnvSources): Promise<Map<string, string>> {
  const vars = new Map<string, string>();
  for (const e of container.env ?? []) {
    const from = e.valueFrom;
    if (from === undefined) {
      vars.set(e.name, expand(e.value ?? '', vars));
    } else if (from.fieldRef) {
      vars.set(e.name, fieldValue(pod, from.fieldRef.fieldPath, src));
    } else {
      const ref = from.secretKeyRef ?? from.configMapKeyRef;
      if (ref === undefined) throw new ConfigError(`env ${e.name}: unsupported valueFrom`);
      const kind = from.secretKeyRef ? 'secret' : 'configmap';
      const keys = from.secretKeyRef ? await src.secret(ref.name) : await src.configMap(ref.name);
      const value = keys?.get(ref.key);
      if (value !== undefined) vars.set(e.name, value.toString('utf8'));
      else if (ref.optional !== true) {
        throw new ConfigError(
          keys === undefined
            ? `${kind} "${ref.name}" not found`
            : `couldn't find key ${ref.key} in ${kind} ${pod.metadata.namespace ?? ''}/${ref.name}`,
        );
      }
    }
  }
  return vars;
}
