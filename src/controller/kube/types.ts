/** The slices of Kubernetes objects the controller reads, as the API server sends them (JSON). */
export interface ApiObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  deletionTimestamp?: string;
  ownerReferences?: OwnerReference[];
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
}

export interface ApiObject {
  apiVersion?: string;
  kind?: string;
  metadata: ApiObjectMeta;
}

export interface KubeList<T> {
  metadata: { resourceVersion?: string; continue?: string };
  items: T[];
}

export interface WatchEvent<T> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  object: T;
}

/** The `Status` an API server sends for errors, also inside watch ERROR events. */
export interface Status {
  kind?: 'Status';
  code?: number;
  reason?: string;
  message?: string;
}

/** A container's state, as the kubelet reports it (`state`, `lastState`). */
export interface ContainerState {
  waiting?: { reason?: string; message?: string };
  running?: { startedAt?: string };
  terminated?: { exitCode?: number; reason?: string; message?: string };
}

export interface ContainerStatus {
  name: string;
  ready?: boolean;
  restartCount?: number;
  state?: ContainerState;
  lastState?: ContainerState;
}

export interface Pod extends ApiObject {
  spec?: { nodeName?: string; containers?: { name: string; lifecycle?: { preStop?: { exec?: { command?: string[] } } } }[] };
  status?: {
    phase?: string;
    podIP?: string;
    conditions?: { type: string; status: string; reason?: string; message?: string }[];
    containerStatuses?: ContainerStatus[];
  };
}

export interface PodTemplate {
  metadata?: { annotations?: Record<string, string> };
  spec?: {
    containers?: {
      name: string;
      args?: string[];
      command?: string[];
      resources?: { limits?: Record<string, string | number>; requests?: Record<string, string | number> };
    }[];
    volumes?: { name: string; configMap?: { name: string }; secret?: { secretName: string } }[];
  };
}

export interface StatefulSet extends ApiObject {
  spec?: { replicas?: number; template?: PodTemplate };
  status?: { observedGeneration?: number; currentRevision?: string; updateRevision?: string };
}

export interface ConfigMap extends ApiObject {
  data?: Record<string, string>;
}

export interface Secret extends ApiObject {
  data?: Record<string, string>;
}

export interface Lease extends ApiObject {
  spec?: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number;
    acquireTime?: string | null;
    renewTime?: string | null;
    leaseTransitions?: number;
  };
}

export const objectKey = (o: ApiObject): string => (o.metadata.namespace ? `${o.metadata.namespace}/${o.metadata.name}` : o.metadata.name);
