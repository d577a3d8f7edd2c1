// The parts of core/v1 objects the kubelet stand-in reads (kept here, not borrowed from
// src/controller, so the test world does not depend on the code it tests).
import type { KubeMeta } from '../kube-watch.js';

export interface EnvVar {
  name: string;
  value?: string;
  valueFrom?: {
    fieldRef?: { fieldPath: string };
    secretKeyRef?: { name: string; key: string; optional?: boolean };
    configMapKeyRef?: { name: string; key: string; optional?: boolean };
  };
}

export interface Probe {
  exec?: { command: string[] };
  periodSeconds?: number;
  timeoutSeconds?: number;
  failureThreshold?: number;
}

export interface Container {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: EnvVar[];
  ports?: { name?: string; containerPort: number }[];
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  readinessProbe?: Probe;
  lifecycle?: { preStop?: { exec?: { command: string[] } } };
  terminationMessagePolicy?: 'File' | 'FallbackToLogsOnError';
}

export interface KeyToPath {
  key: string;
  path: string;
}

export interface Volume {
  name: string;
  emptyDir?: Record<string, unknown>;
  configMap?: { name: string; items?: KeyToPath[]; optional?: boolean; defaultMode?: number };
  secret?: { secretName: string; items?: KeyToPath[]; optional?: boolean; defaultMode?: number };
}

export interface Pod {
  metadata: KubeMeta & { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: {
    nodeName?: string;
    schedulerName?: string;
    containers: Container[];
    volumes?: Volume[];
    terminationGracePeriodSeconds?: number;
    serviceAccountName?: string;
  };
  status?: { phase?: string; podIP?: string };
}

export interface ConfigMap {
  metadata: KubeMeta;
  data?: Record<string, string>;
  binaryData?: Record<string, string>;
}

export interface Secret {
  metadata: KubeMeta;
  /** base64 */
  data?: Record<string, string>;
}

/** What a container's files and environment are made of, as bytes per key. */
export type KeyedBytes = Map<string, Buffer>;

export const configMapBytes = (cm: ConfigMap): KeyedBytes =>
  new Map([
    ...Object.entries(cm.data ?? {}).map(([k, v]): [string, Buffer] => [k, Buffer.from(v, 'utf8')]),
    ...Object.entries(cm.binaryData ?? {}).map(([k, v]): [string, Buffer] => [k, Buffer.from(v, 'base64')]),
  ]);

export const secretBytes = (s: Secret): KeyedBytes =>
  new Map(Object.entries(s.data ?? {}).map(([k, v]): [string, Buffer] => [k, Buffer.from(v, 'base64')]));

export const podKey = (ns: string, name: string): string => `${ns}/${name}`;
