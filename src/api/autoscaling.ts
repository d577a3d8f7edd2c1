import * as z from 'zod/mini';
import { lazy } from './lazy.js';
import { celRules } from './common.js';

/**
 * `spec.autoscaling` of a ValkeyCluster (the model operator's v0.9 fields) and `status.autoscaling`.
 * The controller only decides (status and Events); the shard count stays in git, where a job
 * (integrations/autoscale/) commits the decision (contributing/autoscaling-design.md, Option A).
 */

/** The defaults of the three timings (the model operator's). */
export const AUTOSCALING_DEFAULTS = { scaleInWindowSeconds: 300, scaleOutCooldownSeconds: 180, scaleInCooldownSeconds: 900 } as const;

/** The three measurements, in the order they are checked and named. */
export const AUTOSCALING_METRICS = ['memoryPercent', 'cpuPercent', 'bandwidthMbps'] as const;
export type AutoscalingMetric = (typeof AUTOSCALING_METRICS)[number];

/** Upper bounds of the thresholds: a percentage of maxmemory or of the CPU limit, and a node's link. */
const METRIC_MAX: Record<AutoscalingMetric, number> = { memoryPercent: 100, cpuPercent: 100, bandwidthMbps: 100_000 };
const METRIC_DESCRIPTION: Record<AutoscalingMetric, string> = {
  memoryPercent: "used_memory as a percentage of the node's maxmemory (INFO memory), 1-100",
  cpuPercent: "CPU time (INFO cpu, user + sys) as a percentage of the container's CPU limit, 1-100",
  bandwidthMbps: 'network input plus output (INFO stats), in megabits per second, 1-100000',
};

const whole = (min: number, max: number, what: string) =>
  z
    .number({ error: `must be a whole number ${what}` })
    .check(
      z.int({ error: `must be a whole number ${what}` }),
      z.gte(min, { error: `must be at least ${min}` }),
      z.lte(max, { error: `must be at most ${max}` }),
    );

const thresholds = (when: string) =>
  z
    .strictObject({
      memoryPercent: z
        .optional(whole(1, METRIC_MAX.memoryPercent, 'from 1 to 100'))
        .check(z.meta({ description: METRIC_DESCRIPTION.memoryPercent })),
      cpuPercent: z
        .optional(whole(1, METRIC_MAX.cpuPercent, 'from 1 to 100'))
        .check(z.meta({ description: METRIC_DESCRIPTION.cpuPercent })),
      bandwidthMbps: z
        .optional(whole(1, METRIC_MAX.bandwidthMbps, 'from 1 to 100000'))
        .check(z.meta({ description: METRIC_DESCRIPTION.bandwidthMbps })),
    })
    .check(
      z.refine((t) => AUTOSCALING_METRICS.some((m) => t[m] !== undefined), { error: 'must set at least one threshold' }),
      z.meta({ description: when, minProperties: 1 }),
    );

const seconds = (min: number, fallback: number, description: string) =>
  z.optional(whole(min, 86_400, `of seconds from ${min} to 86400`)).check(z.meta({ description: `${description} Default ${fallback}.` }));

const ORDER_MESSAGE = 'minShards must not be above maxShards';
/** A scale-in threshold at or above its scale-out twin would scale in and out on the same load. */
const gapMessage = (m: AutoscalingMetric) =>
  `scaleIn.${m} must be below scaleOut.${m}, or the cluster would scale in and out on the same load`;

export const autoscalingSpec = lazy(() =>
  z
    .strictObject({
      minShards: whole(1, 1000, 'of shards from 1 to 1000').check(z.meta({ description: 'The autoscaler never proposes fewer shards.' })),
      maxShards: whole(1, 1000, 'of shards from 1 to 1000').check(z.meta({ description: 'The autoscaler never proposes more shards.' })),
      scaleOut: thresholds(
        'One more shard is proposed when any primary passes any of these in its latest sample. At least one is required.',
      ),
      scaleIn: z.optional(
        thresholds(
          "One shard less is proposed when every node's peak over scaleInWindowSeconds is below every threshold set here; absent: never in.",
        ),
      ),
      scaleInWindowSeconds: seconds(
        30,
        AUTOSCALING_DEFAULTS.scaleInWindowSeconds,
        'The window of samples a decision needs: no decision until it is full (after a controller restart or a topology change too).',
      ),
      scaleOutCooldownSeconds: seconds(
        0,
        AUTOSCALING_DEFAULTS.scaleOutCooldownSeconds,
        'No scale-out, and no scale-in, this soon after a scale-out decision.',
      ),
      scaleInCooldownSeconds: seconds(0, AUTOSCALING_DEFAULTS.scaleInCooldownSeconds, 'No scale-in this soon after a scale-in decision.'),
    })
    .check(
      z.superRefine((a, ctx) => {
        if (a.minShards > a.maxShards) ctx.addIssue({ code: 'custom', path: ['maxShards'], message: ORDER_MESSAGE });
        for (const m of AUTOSCALING_METRICS) {
          const inAt = a.scaleIn?.[m];
          const outAt = a.scaleOut[m];
          if (inAt !== undefined && outAt !== undefined && inAt >= outAt)
            ctx.addIssue({ code: 'custom', path: ['scaleIn', m], message: gapMessage(m) });
        }
      }),
      z.meta({
        description:
          'Shard autoscaling, the GitOps way: the controller decides and reports status.autoscaling.desiredShards and ScaleOut/ScaleIn Events; spec.shards (git) stays the count that runs, and a job commits the decision.',
        ...celRules(
          { rule: 'self.minShards <= self.maxShards', message: ORDER_MESSAGE, fieldPath: '.maxShards' },
          ...AUTOSCALING_METRICS.map((m) => ({
            rule: `!has(self.scaleIn) || !has(self.scaleIn.${m}) || !has(self.scaleOut.${m}) || self.scaleIn.${m} < self.scaleOut.${m}`,
            message: gapMessage(m),
            fieldPath: `.scaleIn.${m}`,
          })),
        ),
      }),
    ),
);

export type AutoscalingSpec = z.infer<ReturnType<typeof autoscalingSpec>>;

/** `spec.shards` inside the autoscaler's range: the rule on the spec, in zod and CEL alike. */
export const SHARDS_IN_RANGE_MESSAGE = 'must be within autoscaling.minShards and autoscaling.maxShards';
export const SHARDS_IN_RANGE_RULE = {
  rule: '!has(self.autoscaling) || (self.autoscaling.minShards <= self.shards && self.shards <= self.autoscaling.maxShards)',
  message: SHARDS_IN_RANGE_MESSAGE,
  fieldPath: '.shards',
};

export const SCALE_DIRECTIONS = ['ScaleOut', 'ScaleIn'] as const;
export type ScaleDirection = (typeof SCALE_DIRECTIONS)[number];

export const autoscalingStatus = lazy(() =>
  z.object({
    desiredShards: z.number().check(z.int(), z.gte(1)),
    /** What the autoscaler does now: collecting samples, waiting for an operation, within thresholds, or a pending decision. */
    message: z.optional(z.string()),
    lastDecision: z.optional(z.enum(SCALE_DIRECTIONS)),
    /** The decision's reason: the node, metric, value and threshold behind it. */
    lastDecisionReason: z.optional(z.string()),
    /** RFC 3339. */
    lastDecisionTime: z.optional(z.string()),
    /** The spec.shards the last decision was made from. */
    lastDecisionFromShards: z.optional(z.number().check(z.int(), z.gte(1))),
  }),
);

export type AutoscalingStatus = z.infer<ReturnType<typeof autoscalingStatus>>;
