import { ANNOTATIONS } from './contract/annotations.js';
import { VALKEY_CONTAINER } from './contract/pod-identity.js';

/**
 * What the API server refuses in the objects we render, checked before they are rendered: an
 * object it refuses at apply time leaves git green and the cluster not running. The rules and
 * figures are Kubernetes v1.34's (k8s.io/kubernetes pkg/apis/core/validation/validation.go and
 * k8s.io/apimachinery pkg/api/validation/objectmeta.go); test/apiserver/kube-limits.test.ts holds
 * each against a real kube-apiserver.
 */
export const KUBE_LIMITS = {
  /**
   * `ValidateConfigMap`: the bytes of every `data` and `binaryData` value together (keys not
   * counted) may be at most `core.MaxSecretSize`, 1 MiB; Secrets have the same rule. This is
   * tighter than etcd's default request limit (1.5 MiB), which the whole object must also fit.
   */
  configMapData: 1024 * 1024,
  /**
   * `ValidateAnnotationsSize`: `TotalAnnotationSizeLimitB`, 256 KiB, counting the bytes of every
   * key and value, on any object and on a pod template.
   */
  annotations: 256 * 1024,
} as const;

/** The bytes a string takes in UTF-8, which is what the API server counts. */
export function utf8Length(s: string): number {
  let n = s.length;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) continue;
    if (c < 0x800) n += 1;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 2; // a pair: two code units, four bytes
      i++;
    } else n += 2;
  }
  return n;
}

/** The bytes of an annotation map as the API server counts them: every key and every value. */
export const annotationBytes = (annotations: Readonly<Record<string, string>>): number =>
  Object.entries(annotations).reduce((sum, [k, v]) => sum + utf8Length(k) + utf8Length(v), 0);

/**
 * What the renderer adds to the pod template's annotations besides the team's: the restart hash
 * (its key and a 64-character digest). The team's podAnnotations get the rest of the 256 KiB.
 */
export const POD_ANNOTATION_ROOM = KUBE_LIMITS.annotations - utf8Length(ANNOTATIONS.restartHash) - 64;

/** Annotation keys on a pod (template) whose values the API server validates itself. */
export const KUBE_POD_ANNOTATIONS = {
  deletionCost: 'controller.kubernetes.io/pod-deletion-cost',
  seccompPod: 'seccomp.security.alpha.kubernetes.io/pod',
  seccompContainerPrefix: 'container.seccomp.security.alpha.kubernetes.io/',
  appArmorContainerPrefix: 'container.apparmor.security.beta.kubernetes.io/',
  mirror: 'kubernetes.io/config.mirror',
  tolerations: 'scheduler.alpha.kubernetes.io/tolerations',
} as const;

export interface AnnotationFinding {
  /** The annotation the finding is about; none for the whole map. */
  key?: string;
  message: string;
}

/** At most 40 characters of a value in a message: a 200 KB value is named, not repeated. */
const quoted = (v: string): string => JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v);

/**
 * `helper.GetDeletionCostFromPodAnnotations`: a first character of '-', '1'-'9', or the value
 * "0" (so no '+' and no leading zero), then what Go's `strconv.ParseInt(value, 10, 32)` takes.
 */
const isDeletionCost = (v: string): boolean => /^(0|[1-9][0-9]*|-[0-9]+)$/.test(v) && Number(v) >= -(2 ** 31) && Number(v) <= 2 ** 31 - 1;

/**
 * `ValidateSeccompProfile`: runtime/default, docker/default, unconfined, or localhost/ and a
 * relative path with no `..` element. The pods set `seccompProfile: RuntimeDefault`, and
 * `validateSeccompAnnotationsAndFields` also refuses a pod annotation that disagrees with it.
 */
function seccompFinding(key: string, value: string): string | undefined {
  const fix = 'the annotation has done nothing since Kubernetes 1.27 (the pods already set seccompProfile RuntimeDefault): remove it';
  if (key === KUBE_POD_ANNOTATIONS.seccompPod) {
    if (value === 'runtime/default' || value === 'docker/default') return undefined;
    return `must be runtime/default or docker/default, since the pods set seccompProfile RuntimeDefault and the API server refuses a pod annotation that disagrees; got ${quoted(value)}; ${fix}`;
  }
  if (value === 'runtime/default' || value === 'docker/default' || value === 'unconfined') return undefined;
  if (value.startsWith('localhost/')) {
    const path = value.slice('localhost/'.length);
    if (!path.startsWith('/') && !path.split('/').includes('..')) return undefined;
    return `a localhost/ seccomp profile must be a relative path without '..' (the API server refuses it); got ${quoted(value)}; ${fix}`;
  }
  return `must be a seccomp profile the API server takes: runtime/default, docker/default, unconfined or localhost/<relative path>; got ${quoted(value)}; ${fix}`;
}

/**
 * `ValidateAppArmorPodAnnotations`: the key must name a container of the pod, and the value be
 * empty, runtime/default, unconfined or start with localhost/. Pod Security baseline (and so
 * restricted, which the rendered pods meet) also refuses a pod whose annotation is unconfined, so
 * the StatefulSet would be created and its pods not.
 */
function appArmorFinding(key: string, value: string): string | undefined {
  const container = key.slice(KUBE_POD_ANNOTATIONS.appArmorContainerPrefix.length);
  if (container !== VALKEY_CONTAINER)
    return `names container ${quoted(container)}, but the pods have one container, ${VALKEY_CONTAINER}, and the API server refuses an AppArmor annotation for a container the pod does not have; use ${KUBE_POD_ANNOTATIONS.appArmorContainerPrefix}${VALKEY_CONTAINER}`;
  if (value === '' || value === 'runtime/default' || value.startsWith('localhost/')) return undefined;
  return `must be runtime/default or localhost/<profile> (or empty); got ${quoted(value)}: the API server refuses any other value but unconfined, and Pod Security baseline refuses pods with unconfined, so the StatefulSet would be created and its pods not`;
}

/**
 * Every reason the API server would refuse these podAnnotations on a StatefulSet's pod template
 * (`ValidatePodTemplateSpec`: `ValidateAnnotations`, `ValidatePodSpecificAnnotations`), or Pod
 * Security would refuse its pods. Key syntax is checked with the schema (isQualifiedName).
 */
export function podAnnotationFindings(annotations: Readonly<Record<string, string>>): AnnotationFinding[] {
  const out: AnnotationFinding[] = [];
  const bytes = annotationBytes(annotations);
  if (bytes > POD_ANNOTATION_ROOM)
    out.push({
      message: `keys and values take ${bytes} bytes; the API server takes at most ${KUBE_LIMITS.annotations} bytes (256 KiB) of annotations on a pod template, and valkey-krm's restart hash takes ${KUBE_LIMITS.annotations - POD_ANNOTATION_ROOM} of them, so at most ${POD_ANNOTATION_ROOM} are left: shorten or remove annotations (large data belongs in a ConfigMap, not an annotation)`,
    });
  for (const [key, value] of Object.entries(annotations)) {
    let message: string | undefined;
    if (key === KUBE_POD_ANNOTATIONS.deletionCost) {
      if (!isDeletionCost(value))
        message = `must be a 32-bit integer (-2147483648 to 2147483647, without '+' or leading zeros), as the API server requires; got ${quoted(value)}`;
    } else if (key === KUBE_POD_ANNOTATIONS.seccompPod || key.startsWith(KUBE_POD_ANNOTATIONS.seccompContainerPrefix)) {
      message = seccompFinding(key, value);
    } else if (key.startsWith(KUBE_POD_ANNOTATIONS.appArmorContainerPrefix)) {
      message = appArmorFinding(key, value);
    } else if (key === KUBE_POD_ANNOTATIONS.mirror) {
      message =
        'marks a static pod that a kubelet mirrors; the API server refuses it on a pod without spec.nodeName, which a StatefulSet pod template has not: remove it';
    } else if (key === KUBE_POD_ANNOTATIONS.tolerations) {
      message =
        'has done nothing since Kubernetes 1.6, and the API server still validates its value as tolerations: remove it (valkey-krm sets no tolerations; ask the platform team for a node pool in placement.nodeSelector)';
    }
    if (message) out.push({ key, message });
  }
  return out;
}
