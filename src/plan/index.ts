// The plan: what a change to a package does to every cluster it reaches (DESIGN §10). Pure.
import { wellFormedJson } from '../api/canonical-json.js';
import type { Plan } from './plan-schema.js';

export { planChange, type PlanOptions, type PlanSide } from './plan.js';
export { formatPlanText } from './format-text.js';
export { formatPlanMarkdown, MARKDOWN_MARKER } from './format-markdown.js';
export { explainCluster, formatExplanation, type Explanation } from './explain.js';
export { liveSettingFromTable, type LiveSettingLookup } from './live-settings.js';
export { planJsonSchema, planSchema, PLAN_SCHEMA_ID, VERDICTS, type Plan, type ClusterPlan, type Verdict } from './plan-schema.js';

/** The JSON output: the plan object, two-space indented, in UTF-8 any JSON reader takes. */
export const formatPlanJson = (plan: Plan): string => `${wellFormedJson(plan)}\n`;
