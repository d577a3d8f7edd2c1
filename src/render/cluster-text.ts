import { canonicalJson } from '../api/canonical-json.js';
import type { RenderConfig } from '../api/index.js';
import type { ResolvedCluster } from '../menu/resolve-menu.js';
import { buildObjects, type ObjectParts } from './cluster-objects.js';
import { connectionUsers } from './connection.js';
import type { KubeObject } from './object.js';
import { restartHashOfText, type ClusterRevisions } from './revisions.js';
import { renderShardPodTemplate } from './statefulset.js';

/**
 * The text path of a render (contributing/benchmarks.md, "One text per kind of cluster").
 *
 * Clusters of one fleet mostly differ in their names, their files (valkey.conf, users.acl) and
 * what is derived from those (the revisions); the rest of their objects is the same text. So the
 * objects of every cluster with one config, one render config and one spec (its ACL aside) are
 * built once, with a blank (a token no input holds) for each value that differs, and written once
 * as YAML; each cluster then costs its own values written into that text. The YAML writer writes
 * each blank exactly as it writes a string value there (krm/cluster-writer.ts), so the bytes are
 * those of the objects built for the cluster itself: test/render/cluster-text.test.ts holds the two
 * paths to the same bytes over the goldens and a fleet of awkward names.
 *
 * That rests on one rule for buildObjects (cluster-objects.ts): a name or a file only ever goes
 * into the objects as (part of) a string value, unchanged; never into a key, an order, a length
 * or a branch. templateFor checks what it can of that (no blank in a key; the pod template's hash
 * text holds the names only), and a cluster whose names need quoting in JSON takes the direct path.
 */

/** The values a cluster fills the blanks with, by position. */
export const SLOT = {
  name: 0,
  namespace: 1,
  restart: 2,
  live: 3,
  acl: 4,
  conf: 5,
  usersAcl: 6,
  users: 7,
  /** The file the cluster's objects go to: filled by the writer, which knows the output directory. */
  path: 8,
} as const;

/** What every blank holds; an input that holds it anywhere is rendered without blanks. */
export const SLOT_MARK = 'krmslot';
export const slotToken = (slot: number): string => `z${SLOT_MARK}${slot}z`;
const TOKENS = new RegExp(slotToken(0).replace('0', '(\\d)'));

/** A text with blanks: literal pieces at even places, slot numbers at odd ones. */
export type Recipe = readonly (string | number)[];

/** The recipe of a text that may hold tokens; undefined when it holds none. */
export function recipeOf(text: string): Recipe | undefined {
  if (!text.includes(SLOT_MARK)) return undefined;
  const split = text.split(TOKENS);
  if (split.length === 1) return undefined;
  return split.map((piece, i) => (i % 2 === 1 ? Number(piece) : piece));
}

export function fill(recipe: Recipe, values: readonly string[]): string {
  let text = '';
  for (let i = 0; i < recipe.length; i++) {
    const piece = recipe[i] as string | number;
    text += typeof piece === 'number' ? (values[piece] as string) : piece;
  }
  return text;
}

/** The objects with blanks, shared by every cluster of one kind. */
export interface ClusterTemplate {
  objects: readonly KubeObject[];
  /** The restart hash's text of shard 0's pod template, with the name and namespace blank. */
  restart: Recipe;
}

/** One cluster on the text path: its template and its values (SLOT order; the path left blank). */
export interface ClusterText {
  template: ClusterTemplate;
  values: string[];
}

/** One render's templates, by kind of cluster; made by renderAll for a render that writes YAML. */
export class TextTemplates {
  private readonly templates = new Map<string, ClusterTemplate | null>();
  /** Keys met once, whose template is not made yet. */
  private readonly seen = new Set<string>();
  private readonly ids = new WeakMap<object, number | null>();
  private nextId = 0;

  /** `fromFirst` (tests): the first cluster of a kind takes the text path too. */
  constructor(private readonly fromFirst = false) {}

  /**
   * The template of clusters like this one, or undefined when it takes the direct path: names
   * JSON would escape, or an input (spec, config, render config) that holds the blanks' mark.
   */
  templateFor(
    cluster: ResolvedCluster['cluster'],
    config: ResolvedCluster['config'],
    render: RenderConfig,
    parts: ObjectParts,
  ): ClusterTemplate | undefined {
    const { name, namespace } = cluster.metadata;
    if (!PLAIN_NAME.test(name) || namespace === undefined || !PLAIN_NAME.test(namespace)) return undefined;
    const configId = this.idOf(config);
    const renderId = this.idOf(render);
    if (configId === null || renderId === null) return undefined;
    const key = templateKey(configId, renderId, parts.allowDataLossRoll, cluster.spec);
    if (key.includes(SLOT_MARK)) return undefined;
    let template = this.templates.get(key);
    if (template === undefined) {
      // The first cluster of a kind takes the direct path: a template pays only from the second
      // (a fleet of clusters all unlike each other costs no more than without templates).
      if (!this.fromFirst && !this.seen.has(key)) {
        this.seen.add(key);
        return undefined;
      }
      const { acl: _acl, ...spec } = cluster.spec;
      template = makeTemplate(
        { ...cluster, metadata: { name: slotToken(SLOT.name), namespace: slotToken(SLOT.namespace) }, spec },
        config,
        render,
        parts,
      );
      this.templates.set(key, template);
    }
    return template ?? undefined;
  }

  /** A number per config or render config of this render; null for one that holds the mark. */
  private idOf(value: object): number | null {
    let id = this.ids.get(value);
    if (id === undefined) {
      id = JSON.stringify(value).includes(SLOT_MARK) ? null : this.nextId++;
      this.ids.set(value, id);
    }
    return id;
  }
}

/** Clusters of one key share a template: their config, render config, data-loss opt-in, and spec but spec.acl. */
function templateKey(
  configId: number,
  renderId: number,
  allowDataLossRoll: string | undefined,
  spec: ResolvedCluster['cluster']['spec'],
): string {
  let key = `${configId},${renderId},${JSON.stringify(allowDataLossRoll ?? null)}`;
  for (const field of Object.keys(spec)) {
    if (field === 'acl') continue;
    key += `,${JSON.stringify(field)}:${JSON.stringify(spec[field as keyof typeof spec])}`;
  }
  return key;
}

/** A DNS name: JSON writes it as it is, between quotes. */
const PLAIN_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

function makeTemplate(
  blank: ResolvedCluster['cluster'],
  config: ResolvedCluster['config'],
  render: RenderConfig,
  parts: ObjectParts,
): ClusterTemplate | null {
  const blankParts: ObjectParts = {
    files: { 'valkey.conf': slotToken(SLOT.conf), 'users.acl': slotToken(SLOT.usersAcl), 'probe.sh': parts.files['probe.sh'] },
    users: [slotToken(SLOT.users)],
    ...(parts.allowDataLossRoll !== undefined ? { allowDataLossRoll: parts.allowDataLossRoll } : {}),
  };
  const revisions: ClusterRevisions = { restart: slotToken(SLOT.restart), live: slotToken(SLOT.live), acl: slotToken(SLOT.acl) };
  const shardZero = renderShardPodTemplate({ cluster: blank, config, render, shard: 0 });
  const hashText = canonicalJson(shardZero);
  const restart = recipeOf(hashText) ?? [hashText];
  // The hash text may hold the names only: they are the values it is filled with.
  for (let i = 1; i < restart.length; i += 2) if (restart[i] !== SLOT.name && restart[i] !== SLOT.namespace) return null;
  const objects = buildObjects(blank, config, render, blankParts, revisions, shardZero);
  if (objects.some(blankInKey)) return null;
  return { objects, restart };
}

/** Whether a blank is part of a key anywhere in `value` (a key's place in the text is not a value's). */
function blankInKey(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(blankInKey);
  for (const key of Object.keys(value)) {
    if (key.includes(SLOT_MARK) || blankInKey((value as Record<string, unknown>)[key])) return true;
  }
  return false;
}

/** The restart hash of a cluster on the text path: restartHash (revisions.ts) of its own pod template. */
export function templateRestartHash(template: ClusterTemplate, restartLines: readonly string[], name: string, namespace: string): string {
  return restartHashOfText(restartLines, fill(template.restart, [name, namespace]));
}

/** A cluster's values for its template's blanks. */
export function clusterText(
  template: ClusterTemplate,
  name: string,
  namespace: string,
  revisions: ClusterRevisions,
  parts: ObjectParts,
): ClusterText {
  const values = [
    name,
    namespace,
    revisions.restart,
    revisions.live,
    revisions.acl,
    parts.files['valkey.conf'],
    parts.files['users.acl'],
    connectionUsers(parts.users),
    '',
  ];
  return { template, values };
}
