import { CONDITION, REASON } from '../../api/status-names.js';
import type { Condition } from '../../api/index.js';
import { compareStrings } from '../../api/order.js';
import type { DesiredCondition } from './conditions.js';

/**
 * What a cluster being created waits for (issue 33): the Secrets and ConfigMaps its pods mount or
 * read that do not exist yet. A GitOps sync applies a package in its own order and cert-manager
 * writes a TLS Secret seconds after the objects that mount it, so a missing prerequisite at
 * creation is a wait (Creating, condition Waiting), never a failure. Pure: the StatefulSets and
 * what exists in, the condition out.
 */

export interface Prerequisite {
  kind: 'Secret' | 'ConfigMap';
  name: string;
  /** What needs it, for the message: `spec.tls.secretRef`, `volume config`, `env REPLICATION_PASSWORD`. */
  neededBy: string;
}

/** After this long the Waiting message says so, and where to look; the cluster still waits (never silently bounded). */
export const LONG_WAIT_MS = 10 * 60_000;

interface TemplateVolume {
  name?: string;
  configMap?: { name?: string; optional?: boolean };
  secret?: { secretName?: string; optional?: boolean };
}
interface TemplateEnv {
  name?: string;
  valueFrom?: {
    secretKeyRef?: { name?: string; optional?: boolean };
    configMapKeyRef?: { name?: string; optional?: boolean };
  };
}
interface TemplateContainer {
  env?: TemplateEnv[];
  envFrom?: { secretRef?: { name?: string; optional?: boolean }; configMapRef?: { name?: string; optional?: boolean } }[];
}
/** A StatefulSet as far as this module reads it (cluster/ does not import the kube room). */
interface StatefulSet {
  spec?: unknown;
}
interface TemplateSpec {
  volumes?: TemplateVolume[];
  containers?: TemplateContainer[];
  initContainers?: TemplateContainer[];
}

/**
 * The Secrets and ConfigMaps the StatefulSets' pod templates need and may not start without
 * (volumes, env and envFrom that are not `optional`), once each, by kind and name.
 */
export function templatePrerequisites(statefulSets: readonly StatefulSet[]): Prerequisite[] {
  const found = new Map<string, Prerequisite>();
  const add = (kind: Prerequisite['kind'], name: string | undefined, neededBy: string, optional: boolean | undefined) => {
    if (!name || optional === true) return;
    const key = `${kind}/${name}`;
    if (!found.has(key)) found.set(key, { kind, name, neededBy });
  };
  for (const set of statefulSets) {
    const spec = (set.spec as { template?: { spec?: TemplateSpec } } | undefined)?.template?.spec;
    if (!spec) continue;
    for (const v of spec.volumes ?? []) {
      add('ConfigMap', v.configMap?.name, `volume ${v.name ?? '?'}`, v.configMap?.optional);
      add('Secret', v.secret?.secretName, `volume ${v.name ?? '?'}`, v.secret?.optional);
    }
    for (const c of [...(spec.initContainers ?? []), ...(spec.containers ?? [])]) {
      for (const e of c.env ?? []) {
        const from = e.valueFrom;
        add('Secret', from?.secretKeyRef?.name, `env ${e.name ?? '?'}`, from?.secretKeyRef?.optional);
        add('ConfigMap', from?.configMapKeyRef?.name, `env ${e.name ?? '?'}`, from?.configMapKeyRef?.optional);
      }
      for (const e of c.envFrom ?? []) {
        add('Secret', e.secretRef?.name, 'envFrom', e.secretRef?.optional);
        add('ConfigMap', e.configMapRef?.name, 'envFrom', e.configMapRef?.optional);
      }
    }
  }
  return [...found.values()].sort((a, b) => compareStrings(`${a.kind}/${a.name}`, `${b.kind}/${b.name}`));
}

/** "Secret payments/ledger-cache-tls (spec.tls.secretRef)". */
export const describePrerequisite = (namespace: string, p: Prerequisite): string => `${p.kind} ${namespace}/${p.name} (${p.neededBy})`;

/**
 * The Waiting condition: True while something is missing, naming it and since when (the time the
 * wait began, kept across passes, so an unchanged wait writes no status); after LONG_WAIT_MS the
 * message says how long and where to look. Once nothing is missing it stays, False, so the end of
 * a wait is visible too; a cluster that never waited has no such condition.
 */
export function waitingCondition(
  namespace: string,
  missing: readonly Prerequisite[],
  previous: Condition | undefined,
  now: string,
  observedGeneration: number,
): DesiredCondition | undefined {
  if (missing.length === 0) {
    if (!previous) return undefined;
    return {
      type: CONDITION.waiting,
      status: 'False',
      reason: REASON.waiting.nothingMissing,
      message: 'Every Secret and ConfigMap the pods need exists',
      observedGeneration,
    };
  }
  const since = previous?.status === 'True' ? previous.lastTransitionTime : now;
  const first = missing[0] as Prerequisite;
  const names = missing.map((p) => describePrerequisite(namespace, p)).join(', ');
  const waited = Date.parse(now) - Date.parse(since);
  const long =
    waited >= LONG_WAIT_MS
      ? `; still missing after more than ${LONG_WAIT_MS / 60_000} minutes: check what should create it (for a cert-manager Certificate, kubectl describe certificate -n ${namespace}; kubectl get events -n ${namespace})`
      : '';
  return {
    type: CONDITION.waiting,
    status: 'True',
    reason: first.kind === 'Secret' ? REASON.waiting.secretMissing : REASON.waiting.configMapMissing,
    message: `Waiting for ${names} since ${since}: the pods cannot start without it; creation goes on as soon as it exists${long}`,
    observedGeneration,
  };
}
