import { hasErrors, type Problem, type RenderConfig } from '../api/index.js';
import { parseMenu } from '../menu/parse.js';
import { provenanceOf, type ClusterProvenance } from '../menu/provenance.js';
import { resolveMenu } from '../menu/resolve-menu.js';
import type { KubeObject } from './object.js';
import { renderCluster } from './cluster.js';
import { TextTemplates, type ClusterText } from './cluster-text.js';
import { previousClusters } from './previous.js';

export interface RenderedSet {
  /** Per cluster, in namespace/name order. Empty whenever any problem is an error. */
  clusters: {
    namespace: string;
    name: string;
    objects: KubeObject[];
    provenance: ClusterProvenance;
    /** spec.autoscaling's range, for plan: nothing rendered depends on it. */
    autoscaling?: { minShards: number; maxShards: number };
    /** The shape checks' warnings for this cluster (shape-checks.ts), for plan's risks. */
    shapeWarnings?: string[];
    /** With RenderOptions.text, for most clusters: the objects as a template's text and this cluster's values (`objects` is then empty). */
    text?: ClusterText;
  }[];
  problems: Problem[];
  stats: { images: number; configs: number; roles: number; clusters: number };
}

export type ClusterRenderOf = RenderedSet['clusters'][number];

export interface RenderOptions {
  validateOnly?: boolean;
  /**
   * Each cluster's render, handed over as soon as it is made (in namespace/name order) instead of
   * kept in `clusters`: a caller that writes the objects out at once keeps none of them alive, so
   * a render of thousands of clusters holds its output as bytes, not as objects. It gets clusters
   * even when a later one fails: it must drop what it wrote when `problems` has an error.
   */
  onCluster?: (cluster: ClusterRenderOf) => void;
  /** The function's own output from an earlier run, as it came back in the input (kpt re-renders). */
  previous?: readonly unknown[];
  /**
   * For a caller that only writes the objects out as YAML (with onCluster): clusters alike but
   * for their names and files share one text (cluster-text.ts), handed over as `text`.
   */
  text?: boolean;
  /** Tests: with `text`, the first cluster of each kind takes the text path too (cluster-text.ts). */
  textFromFirst?: boolean;
}

/**
 * The whole job on plain values: parse the Valkey objects, resolve the menu, render every
 * cluster. Any error anywhere means nothing is rendered: a partial render would make Argo CD or
 * Flux prune the clusters that failed.
 */
export function renderAll(valkeyObjects: readonly unknown[], render: RenderConfig | undefined, options: RenderOptions = {}): RenderedSet {
  const { menu, problems } = parseMenu(valkeyObjects);
  const resolved = resolveMenu(menu);
  problems.push(...resolved.problems);
  const stats = { images: menu.images.size, configs: menu.configs.size, roles: menu.roles.size, clusters: menu.clusters.length };
  const clusters: RenderedSet['clusters'] = [];
  if (render) {
    const previous = previousClusters(options.previous ?? []);
    const text = options.text && !options.validateOnly ? { text: new TextTemplates(options.textFromFirst) } : {};
    for (const rc of resolved.clusters) {
      const out = renderCluster(rc, menu.roles, render, previous.get(`${rc.cluster.metadata.namespace}/${rc.cluster.metadata.name}`), text);
      problems.push(...out.problems);
      if (options.validateOnly) continue;
      const entry: ClusterRenderOf = {
        namespace: rc.cluster.metadata.namespace as string,
        name: rc.cluster.metadata.name,
        objects: out.objects,
        provenance: provenanceOf(rc),
        ...(rc.cluster.spec.autoscaling
          ? { autoscaling: { minShards: rc.cluster.spec.autoscaling.minShards, maxShards: rc.cluster.spec.autoscaling.maxShards } }
          : {}),
        ...(out.shapeWarnings ? { shapeWarnings: out.shapeWarnings } : {}),
        ...(out.text ? { text: out.text } : {}),
      };
      if (options.onCluster) options.onCluster(entry);
      else clusters.push(entry);
    }
  }
  const unique = dedupe(problems);
  return { clusters: hasErrors(unique) ? [] : clusters, problems: unique, stats };
}

/** The same finding reached through several clusters is reported once. */
function dedupe(problems: Problem[]): Problem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const key = JSON.stringify([p.severity, p.message, p.object, p.field]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
