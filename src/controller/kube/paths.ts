import { GROUP, VERSION } from '../../api/index.js';

/** REST paths of the resources the controller reads and writes. */
const ns = (namespace: string | undefined) => (namespace ? `/namespaces/${namespace}` : '');
const crd = (plural: string, namespace?: string) => `/apis/${GROUP}/${VERSION}${ns(namespace)}/${plural}`;

export const paths = {
  valkeyClusters: (namespace?: string) => crd('valkeyclusters', namespace),
  valkeyClusterStatus: (namespace: string, name: string) => `${crd('valkeyclusters', namespace)}/${name}/status`,
  valkeyCluster: (namespace: string, name: string) => `${crd('valkeyclusters', namespace)}/${name}`,
  valkeyConfigs: () => crd('valkeyconfigs'),
  valkeyMeteringRecords: (namespace: string) => crd('valkeymeteringrecords', namespace),
  valkeyMeteringRecord: (namespace: string, name: string) => `${crd('valkeymeteringrecords', namespace)}/${name}`,
  valkeyMeteringRecordStatus: (namespace: string, name: string) => `${crd('valkeymeteringrecords', namespace)}/${name}/status`,
  valkeyImages: () => crd('valkeyimages'),
  valkeyImage: (name: string) => `${crd('valkeyimages')}/${name}`,
  nodes: () => '/api/v1/nodes',
  pods: (namespace?: string) => `/api/v1${ns(namespace)}/pods`,
  statefulSets: (namespace?: string) => `/apis/apps/v1${ns(namespace)}/statefulsets`,
  podDisruptionBudgets: (namespace: string) => `/apis/policy/v1${ns(namespace)}/poddisruptionbudgets`,
  configMaps: (namespace?: string) => `/api/v1${ns(namespace)}/configmaps`,
  eviction: (namespace: string, pod: string) => `/api/v1/namespaces/${namespace}/pods/${pod}/eviction`,
  events: (namespace: string) => `/api/v1/namespaces/${namespace}/events`,
  event: (namespace: string, name: string) => `/api/v1/namespaces/${namespace}/events/${name}`,
  secret: (namespace: string, name: string) => `/api/v1/namespaces/${namespace}/secrets/${name}`,
  leases: (namespace: string) => `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases`,
  lease: (namespace: string, name: string) => `/apis/coordination.k8s.io/v1/namespaces/${namespace}/leases/${name}`,
} as const;
