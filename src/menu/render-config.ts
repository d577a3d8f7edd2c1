import {
  GROUP,
  RENDER_CONFIG_KIND,
  SYSTEM_USERS_HINT,
  renderConfig,
  renderConfigSpec,
  type ObjectRef,
  type Problem,
  type RenderConfig,
} from '../api/index.js';
import { acceptRenderConfig, acceptRenderConfigSpec } from './fast-accept.js';
import { own } from './own.js';
import { objectRefOf } from './parse.js';
import { issuesToProblems } from './zod-problems.js';

/** A ValkeyRenderConfig of any version of our group. */
export const isRenderConfig = (value: unknown): boolean => {
  const apiVersion = own(value, 'apiVersion');
  return typeof apiVersion === 'string' && apiVersion.startsWith(`${GROUP}/`) && own(value, 'kind') === RENDER_CONFIG_KIND;
};

export type RenderConfigCheck = { config?: RenderConfig; problems: Problem[] };

/** Checks a ValkeyRenderConfig object; problems about the system users carry the hint to create them. */
export function validateRenderConfig(value: unknown): RenderConfigCheck {
  // The common valid config is checked without building zod's schema (fast-accept.ts).
  const accepted = acceptRenderConfig(value);
  if (accepted) return { config: accepted, problems: [] };
  const ref = objectRefOf(value);
  const parsed = renderConfig().safeParse(value, { reportInput: true });
  if (!parsed.success) return { problems: withHint(issuesToProblems(parsed.error.issues, { object: ref }), ref) };
  return { config: parsed.data.spec, problems: [] };
}

/**
 * Checks a render config's spec that arrived in another form (`ref` names the object it came
 * from); `relocate` lets the caller point each problem's field at where that form keeps it.
 */
export function validateRenderConfigSpec(spec: unknown, ref: ObjectRef, relocate: (p: Problem) => Problem = (p) => p): RenderConfigCheck {
  const accepted = acceptRenderConfigSpec(spec);
  if (accepted) return { config: accepted, problems: [] };
  const parsed = renderConfigSpec().safeParse(spec, { reportInput: true });
  if (!parsed.success) return { problems: withHint(issuesToProblems(parsed.error.issues, { object: ref }).map(relocate), ref) };
  return { config: parsed.data, problems: [] };
}

function withHint(problems: Problem[], ref: ObjectRef): Problem[] {
  return problems.map((p) =>
    p.field?.includes('systemUsers') || p.message.includes('systemUsers')
      ? { ...p, message: `${p.message}\n${SYSTEM_USERS_HINT}`, object: p.object ?? ref }
      : p,
  );
}
