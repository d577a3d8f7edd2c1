// The stand-in kubelet's binder: kube-scheduler's hard filters for what valkey-krm renders, so a
// pod the real scheduler would leave Pending stays Pending here too. Covered: nodeSelector,
// required node affinity (In, NotIn, Exists, DoesNotExist), required pod anti-affinity (matchLabels
// and matchExpressions, the pod's namespace), and DoNotSchedule topology spread (maxSkew over the
// domains of the nodes that pass the node filters; ScheduleAnyway is only a preference). Not covered
// (valkey-krm renders none): pod affinity, taints, resources, minDomains, matchLabelKeys.

export interface SchedNode {
  name: string;
  labels: Readonly<Record<string, string>>;
}

export interface SchedPod {
  namespace: string;
  labels: Readonly<Record<string, string>>;
  spec: {
    nodeSelector?: Record<string, string>;
    affinity?: {
      nodeAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: { nodeSelectorTerms?: NodeSelectorTerm[] } };
      podAntiAffinity?: { requiredDuringSchedulingIgnoredDuringExecution?: PodAffinityTerm[] };
    };
    topologySpreadConstraints?: SpreadConstraint[];
  };
}

interface Requirement {
  key: string;
  operator: string;
  values?: string[];
}
interface NodeSelectorTerm {
  matchExpressions?: Requirement[];
}
interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Requirement[];
}
interface PodAffinityTerm {
  topologyKey: string;
  labelSelector?: LabelSelector;
  namespaces?: string[];
}
interface SpreadConstraint {
  maxSkew: number;
  topologyKey: string;
  whenUnsatisfiable: 'DoNotSchedule' | 'ScheduleAnyway';
  labelSelector?: LabelSelector;
}

/** A pod already bound, by node. */
export interface Placed {
  node: string;
  pod: Pick<SchedPod, 'namespace' | 'labels'>;
}

function meets(labels: Readonly<Record<string, string>>, r: Requirement): boolean {
  const has = Object.hasOwn(labels, r.key);
  switch (r.operator) {
    case 'In':
      return has && (r.values ?? []).includes(labels[r.key] as string);
    case 'NotIn':
      return !has || !(r.values ?? []).includes(labels[r.key] as string);
    case 'Exists':
      return has;
    case 'DoesNotExist':
      return !has;
    default:
      throw new Error(`operator ${r.operator} is not modelled by the stand-in scheduler`);
  }
}

/** Label selector semantics: a missing selector selects nothing (as for spread and affinity terms). */
function selects(selector: LabelSelector | undefined, labels: Readonly<Record<string, string>>): boolean {
  if (!selector) return false;
  const byLabel = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  return byLabel && (selector.matchExpressions ?? []).every((r) => meets(labels, r));
}

function passesNodeFilters(pod: SchedPod, node: SchedNode): boolean {
  const selector = pod.spec.nodeSelector ?? {};
  if (!Object.entries(selector).every(([k, v]) => node.labels[k] === v)) return false;
  const terms = pod.spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms;
  return !terms || terms.some((t) => (t.matchExpressions ?? []).every((r) => meets(node.labels, r)));
}

/** Why `pod` may not go to `node`, or undefined when it may. */
function refusal(
  pod: SchedPod,
  node: SchedNode,
  eligible: readonly SchedNode[],
  placed: readonly Placed[],
  nodes: readonly SchedNode[],
): string | undefined {
  if (!passesNodeFilters(pod, node)) return "didn't match Pod's node affinity/selector";
  const labelsOf = (name: string) => nodes.find((n) => n.name === name)?.labels ?? {};
  for (const term of pod.spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []) {
    const domain = node.labels[term.topologyKey];
    if (domain === undefined) continue;
    const namespaces = term.namespaces?.length ? term.namespaces : [pod.namespace];
    const clash = placed.some(
      (p) =>
        namespaces.includes(p.pod.namespace) && selects(term.labelSelector, p.pod.labels) && labelsOf(p.node)[term.topologyKey] === domain,
    );
    if (clash) return "didn't match pod anti-affinity rules";
  }
  for (const c of pod.spec.topologySpreadConstraints ?? []) {
    if (c.whenUnsatisfiable !== 'DoNotSchedule') continue;
    const domain = node.labels[c.topologyKey];
    if (domain === undefined) return "didn't match pod topology spread constraints (missing required label)";
    const counts = new Map<string, number>();
    for (const n of eligible) {
      const d = n.labels[c.topologyKey];
      if (d !== undefined) counts.set(d, 0);
    }
    for (const p of placed) {
      const d = labelsOf(p.node)[c.topologyKey];
      if (d !== undefined && counts.has(d) && p.pod.namespace === pod.namespace && selects(c.labelSelector, p.pod.labels))
        counts.set(d, (counts.get(d) ?? 0) + 1);
    }
    const min = Math.min(...counts.values());
    const self = selects(c.labelSelector, pod.labels) ? 1 : 0;
    if ((counts.get(domain) ?? 0) + self - min > c.maxSkew) return "didn't match pod topology spread constraints";
  }
  return undefined;
}

export type Decision = { kind: 'bind'; node: string } | { kind: 'unschedulable'; message: string };

/**
 * Where kube-scheduler could bind `pod`: among the nodes passing every hard filter, the least busy
 * (ties by name). None: the message kube-scheduler writes on the PodScheduled condition.
 */
export function chooseNode(pod: SchedPod, nodes: readonly SchedNode[], placed: readonly Placed[]): Decision {
  const eligible = nodes.filter((n) => passesNodeFilters(pod, n));
  const reasons = new Map<string, number>();
  const feasible: SchedNode[] = [];
  for (const n of nodes) {
    const why = refusal(pod, n, eligible, placed, nodes);
    if (why === undefined) feasible.push(n);
    else reasons.set(why, (reasons.get(why) ?? 0) + 1);
  }
  if (feasible.length === 0) {
    const detail = [...reasons].map(([why, count]) => `${count} node(s) ${why}`).join(', ');
    return { kind: 'unschedulable', message: `0/${nodes.length} nodes are available: ${detail}.` };
  }
  const load = (name: string) => placed.filter((p) => p.node === name).length;
  const best = [...feasible].sort(
    (a, b) => load(a.name) - load(b.name) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  )[0] as SchedNode;
  return { kind: 'bind', node: best.name };
}
