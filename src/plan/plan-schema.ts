import * as z from 'zod/mini';
import { lazy } from '../api/lazy.js';

/**
 * The plan's JSON output: one zod schema, the TypeScript types inferred from it, and
 * `src/plan/plan.schema.json` generated from it (`npx tsx scripts/gen-plan-schema.ts`), so the
 * documented schema and the code can never disagree.
 */
export const PLAN_SCHEMA_ID = 'valkey-krm.plan/v1';

/** Most disruptive first: a cluster's verdict is the first of these that applies to it. */
export const VERDICTS = ['held', 'risky', 'roll', 'scale', 'live', 'new', 'retired', 'unchanged'] as const;
export type Verdict = (typeof VERDICTS)[number];

const described = <T extends z.ZodMiniType>(schema: T, description: string): T => schema.check(z.meta({ description })) as T;
const count = () => z.number().check(z.int(), z.gte(0));

const problem = lazy(() =>
  z.strictObject({
    severity: z.enum(['error', 'warning', 'info']),
    message: z.string(),
    object: z.optional(described(z.string(), 'The object it is about, e.g. "ValkeyConfig standard".')),
    field: z.optional(z.string()),
    file: z.optional(described(z.string(), 'The file the object was read from (base files in git mode as REV:path).')),
    line: z.optional(described(z.number(), 'The line in `file` of the field (or of the object), from 1.')),
    column: z.optional(described(z.number(), 'The column of that line, from 1.')),
  }),
);

const edit = lazy(() =>
  z.strictObject({
    kind: z.string(),
    name: z.string(),
    namespace: z.optional(z.string()),
    change: z.enum(['added', 'removed', 'changed']),
  }),
);

const settingChange = lazy(() =>
  z.strictObject({
    name: z.string(),
    from: described(z.nullable(z.string()), 'The value in the base; null when the setting is new.'),
    to: described(z.nullable(z.string()), 'The value in the change; null when the setting is gone.'),
    applies: described(
      z.enum(['live', 'restart', 'unknown']),
      'What the settings table says: CONFIG SET applies it live, or it needs a restart.',
    ),
    setBy: described(z.string(), 'The ValkeyConfig in the chain that sets it ("ValkeyConfig NAME"), or "forced" (valkey-krm sets it).'),
  }),
);

const userChange = lazy(() =>
  z.strictObject({
    username: z.string(),
    level: described(
      z.enum(['platform', 'team', 'system']),
      "platform: bound in a ValkeyConfig; team: in the ValkeyCluster; system: valkey-krm's own users.",
    ),
    change: z.enum(['added', 'removed', 'passwords', 'permissions', 'passwords and permissions']),
    passwordsAdded: count(),
    passwordsRemoved: count(),
    boundBy: described(z.string(), 'The object that binds the user, e.g. "ValkeyConfig standard" or "ValkeyCluster team-a/cache".'),
    editedRoles: described(z.array(z.string()), 'ValkeyRoles of this user that the change edits.'),
  }),
);

export const CAUSE_KINDS = ['image', 'resources', 'settings', 'tls', 'placement', 'annotations', 'chain', 'other'] as const;

const cause = lazy(() =>
  z.strictObject({
    kind: z.enum(CAUSE_KINDS),
    detail: z.string(),
    objects: described(z.array(z.string()), 'The edited objects behind it, e.g. "ValkeyImage valkey-9-0" or "ValkeyConfig standard".'),
  }),
);

const rollShard = lazy(() =>
  z.strictObject({
    statefulSet: z.string(),
    replicas: described(z.array(z.string()), 'Replica pods, restarted first, one at a time.'),
    failover: described(z.boolean(), 'Whether a replica on the new revision takes over before the primary restarts.'),
    primary: z.string(),
  }),
);

const roll = lazy(() =>
  z.strictObject({
    pods: described(count(), 'Existing pods that restart.'),
    failovers: count(),
    shards: described(z.array(rollShard()), 'In roll order: shard by shard.'),
    causes: z.array(cause()),
  }),
);

const fromTo = lazy(() => z.strictObject({ from: count(), to: count() }));

const scale = lazy(() =>
  z.strictObject({
    shards: fromTo(),
    replicasPerShard: fromTo(),
    slotsToMove: described(count(), 'Roughly: 16384 slots spread evenly, so |to - from| / max(from, to) of them move.'),
    podsAdded: count(),
    podsRemoved: count(),
    shardsAdded: z.array(z.string()),
    shardsRemoved: z.array(z.string()),
  }),
);

const risk = lazy(() =>
  z.strictObject({
    level: described(
      z.enum(['held', 'risky']),
      'held: the controller will not do it without an explicit opt-in; risky: it will, but read this first.',
    ),
    message: z.string(),
  }),
);

const shape = lazy(() =>
  z.strictObject({
    shards: count(),
    replicasPerShard: count(),
    pods: count(),
    configChain: z.array(z.string()),
    image: z.string(),
    tls: z.boolean(),
  }),
);

/** Metering figures per month are for a 30-day month (720 hours), so a month's figure is the same whatever month it is. */
export const METERING_HOURS_PER_MONTH = 720;

const meteringSide = lazy(() =>
  z.strictObject({
    pods: count(),
    source: described(
      z.enum(['Reserved', 'Maxmemory', 'Observed']),
      "The model's order: resources.memory, else maxmemory, else the nodes' observed peak (known only once the cluster runs).",
    ),
    memory: described(z.string(), 'The per-pod figure as the plan reads it, e.g. "resources.memory 2Gi".'),
    podBytes: described(count(), 'Bytes counted per pod, the 100 MB floor applied; for Observed the floor, a lower bound.'),
    gbHoursPerMonth: described(
      z.string(),
      'pods × podBytes × 720 h ÷ 10^9, to three decimals (cut, not rounded), as the controller writes gbHours.',
    ),
    atLeast: described(z.boolean(), 'true when the figure is a lower bound (an Observed source).'),
  }),
);

const clusterMetering = lazy(() =>
  z.strictObject({
    before: described(z.nullable(meteringSide()), 'null for a new cluster.'),
    after: described(z.nullable(meteringSide()), 'null for a retired cluster: its records close when the ValkeyCluster is deleted.'),
  }),
);

const meteringTotal = lazy(() => z.strictObject({ gbHoursPerMonth: z.string(), atLeast: z.boolean() }));

const metering = lazy(() =>
  z.strictObject({
    hoursPerMonth: z.literal(METERING_HOURS_PER_MONTH),
    namespaces: described(
      z.array(z.strictObject({ namespace: z.string(), before: meteringTotal(), after: meteringTotal() })),
      'Provisioned GB-hours per month of every cluster of the namespace, before and after; only namespaces where it changes, by name.',
    ),
  }),
);

const clusterPlan = lazy(() =>
  z.strictObject({
    namespace: z.string(),
    name: z.string(),
    verdict: z.enum(VERDICTS),
    reasons: described(z.array(z.string()), 'The same facts as the fields below, as sentences.'),
    settings: z.optional(z.array(settingChange())),
    users: z.optional(z.array(userChange())),
    roll: z.optional(roll()),
    scale: z.optional(scale()),
    risks: z.optional(z.array(risk())),
    cluster: z.optional(described(shape(), 'For new and retired clusters: what appears or goes.')),
    metering: z.optional(
      described(clusterMetering(), 'Provisioned memory before and after, when the metered figure or its source changes.'),
    ),
  }),
);

const counts = lazy(() =>
  z.strictObject({
    clusters: count(),
    held: count(),
    risky: count(),
    roll: count(),
    scale: count(),
    live: count(),
    new: count(),
    retired: count(),
    unchanged: count(),
    podsRestarted: described(count(), 'Over every cluster whose pods restart, whatever its verdict.'),
    failovers: count(),
    slotsToMove: count(),
  }),
);

export const planSchema = lazy(() =>
  z.strictObject({
    schema: z.literal(PLAN_SCHEMA_ID),
    ok: described(z.boolean(), 'false when the base or the change is invalid (see invalid); then clusters is empty.'),
    summary: z.string(),
    edits: described(z.array(edit()), 'The Valkey objects that differ between base and change (formatting ignored).'),
    renderConfigChanged: z.boolean(),
    counts: counts(),
    clusters: described(z.array(clusterPlan()), 'Grouped by verdict (in the order of VERDICTS), then by namespace/name.'),
    invalid: z.array(z.strictObject({ side: z.enum(['base', 'change']), problems: z.array(problem()) })),
    warnings: described(z.array(problem()), 'Warnings the change side renders with.'),
    metering: z.optional(described(metering(), "Present when some namespace's provisioned GB-hours change.")),
  }),
);

export type Plan = z.infer<ReturnType<typeof planSchema>>;
export type ClusterPlan = z.infer<ReturnType<typeof clusterPlan>>;
export type SettingChange = z.infer<ReturnType<typeof settingChange>>;
export type UserChange = z.infer<ReturnType<typeof userChange>>;
export type RollCause = z.infer<ReturnType<typeof cause>>;
export type ShardRollPlan = z.infer<ReturnType<typeof rollShard>>;
export type ScalePlan = z.infer<ReturnType<typeof scale>>;
export type Risk = z.infer<ReturnType<typeof risk>>;
export type PlanProblem = z.infer<ReturnType<typeof problem>>;
export type ObjectEdit = z.infer<ReturnType<typeof edit>>;
export type PlanCounts = z.infer<ReturnType<typeof counts>>;
export type ClusterShape = z.infer<ReturnType<typeof shape>>;
export type MeteringSide = z.infer<ReturnType<typeof meteringSide>>;
export type ClusterMetering = z.infer<ReturnType<typeof clusterMetering>>;
export type PlanMetering = z.infer<ReturnType<typeof metering>>;

/** The JSON Schema (draft 2020-12) of the JSON output. */
export function planJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(planSchema(), { target: 'draft-2020-12', io: 'output' }) as Record<string, unknown>;
  return {
    $schema: schema.$schema,
    $id: `https://valkey.gomomento.com/schemas/${PLAN_SCHEMA_ID}.json`,
    title: 'valkey-krm plan',
    description: 'The output of `render-valkey plan --format json`: what a change to a package does to every cluster it reaches.',
    ...Object.fromEntries(Object.entries(schema).filter(([k]) => k !== '$schema')),
  };
}
