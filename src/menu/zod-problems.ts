import type * as z from 'zod/mini';
import { describeRef, error, type ObjectRef, type Problem } from '../api/index.js';

/** `spec.acl[0].permissions[1].roleRef`: the dotted path kubectl users read in API server errors. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else {
      const s = String(part);
      out += /^[A-Za-z_][A-Za-z0-9_-]*$/.test(s) ? (out ? `.${s}` : s) : `[${JSON.stringify(s)}]`;
    }
  }
  return out;
}

export interface IssueContext {
  object: ObjectRef;
  /** Extra advice for unknown fields, keyed by the dotted path of the object holding them. */
  unknownFieldHints?: Record<string, string>;
}

/** One Problem per zod issue, each naming the object and the field with an actionable message. */
export function issuesToProblems(issues: readonly z.core.$ZodIssue[], ctx: IssueContext): Problem[] {
  const problems: Problem[] = [];
  for (const issue of issues) {
    const where = formatPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const field = where ? `${where}.${key}` : key;
        const hint =
          ctx.unknownFieldHints?.[where] ??
          `remove it, or check its spelling against \`kubectl explain ${ctx.object.kind.toLowerCase()}.${where || 'spec'}\``;
        problems.push(error(`${describeRef(ctx.object)}: ${field}: unknown field; ${hint}`, ctx.object, field));
      }
      continue;
    }
    if (issue.code === 'invalid_key' && issue.issues.length > 0) {
      // A map key failed its schema: zod says "Invalid key in record"; the key schema says why.
      problems.push(error(`${describeRef(ctx.object)}: ${where}: ${issue.issues[0]?.message ?? issue.message}`, ctx.object, where));
      continue;
    }
    if (issue.code === 'invalid_union' && issue.errors.length > 0 && issue.message.startsWith('Invalid input')) {
      // zod reports each branch; the first branch's message is the most useful one to people.
      problems.push(error(`${describeRef(ctx.object)}: ${where}: ${branchMessage(issue)}`, ctx.object, where));
      continue;
    }
    const missing = issue.code === 'invalid_type' && 'input' in issue && issue.input === undefined;
    const message = missing && !hasCustomRequiredMessage(issue.message) ? `is required (${issue.message})` : issue.message;
    problems.push(error(`${describeRef(ctx.object)}: ${where || '(object)'}: ${message}`, ctx.object, where || undefined));
  }
  return problems;
}

const hasCustomRequiredMessage = (m: string) => !m.startsWith('Invalid input');

function branchMessage(issue: z.core.$ZodIssueInvalidUnion): string {
  const first = issue.errors[0]?.[0];
  return first?.message ?? issue.message;
}
