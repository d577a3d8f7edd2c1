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

/** `spec.acl.permissions`: what `kubectl explain` accepts, which is the path without list indexes or map keys. */
export const explainPath = (path: readonly PropertyKey[]): string =>
  path.filter((part): part is string => typeof part === 'string' && /^[A-Za-z_][A-Za-z0-9_-]*$/.test(part)).join('.');

export interface IssueContext {
  object: ObjectRef;
  /** Extra advice for unknown fields, keyed by the dotted path of the object holding them. */
  unknownFieldHints?: Record<string, string>;
}

/** One Problem per zod issue, each naming the object and the field with a sentence a person can act on. */
export function issuesToProblems(issues: readonly z.core.$ZodIssue[], ctx: IssueContext): Problem[] {
  const problems: Problem[] = [];
  const who = describeRef(ctx.object);
  for (const issue of issues) {
    const where = formatPath(issue.path);
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        const field = where ? `${where}.${key}` : key;
        const explain = `${ctx.object.kind.toLowerCase()}.${explainPath(issue.path) || 'spec'}`;
        const hint = ctx.unknownFieldHints?.[where] ?? `remove it, or check its spelling against \`kubectl explain ${explain}\``;
        problems.push(error(`${who}: ${field}: unknown field; ${hint}`, ctx.object, field));
      }
      continue;
    }
    problems.push(error(`${who}: ${where || '(object)'}: ${describeIssue(issue)}`, ctx.object, where || undefined));
  }
  return problems;
}

/** zod's own wording ("Invalid input: expected array, received undefined"), which we replace. */
const isZodDefault = (message: string) => /^(Invalid|Too (big|small)|Unrecognized)/.test(message);

/** A schema's message written for a missing field ("is required: the image repository"). */
const REQUIRED = /^is required(?::\s*|$)/;

function describeIssue(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'invalid_type':
      return describeType(issue.expected, inputOf(issue), isZodDefault(issue.message) ? undefined : issue.message);
    case 'invalid_union': {
      // Each branch failed; the union's own message says what is wanted, and the first branch
      // (a string, where a quantity may also be a number) says what was found.
      const first = issue.errors[0]?.[0];
      const own = isZodDefault(issue.message) ? undefined : issue.message;
      if (first?.code === 'invalid_type' && first.path.length === 0) return describeType(first.expected, inputOf(issue), own);
      return own ?? (first ? describeIssue(first) : 'is not a value this field accepts');
    }
    case 'invalid_key':
      return issue.issues[0] ? describeIssue(issue.issues[0]) : 'has a key this field does not accept';
    case 'too_big':
      // Always our words: a schema's type message ("is required: …") would otherwise stand in for it.
      return tooBig(issue);
    case 'too_small':
      return isZodDefault(issue.message) ? tooSmall(issue) : issue.message;
    case 'invalid_value':
      return isZodDefault(issue.message)
        ? `must be ${issue.values.length === 1 ? '' : 'one of '}${issue.values.map((v) => JSON.stringify(v)).join(', ')}; got ${shown(inputOf(issue))}`
        : issue.message;
    case 'invalid_format':
      return isZodDefault(issue.message) ? `is not in the form this field takes; got ${shown(inputOf(issue))}` : issue.message;
    default:
      return isZodDefault(issue.message) ? `is not a value this field accepts; got ${shown(inputOf(issue))}` : issue.message;
  }
}

const inputOf = (issue: { input?: unknown }): unknown => issue.input;

const EXPECTED: Record<string, string> = {
  array: 'a list (YAML lines starting with "- ")',
  object: 'a mapping (YAML "key: value" lines)',
  record: 'a mapping (YAML "key: value" lines)',
  string: 'a string',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
};

/**
 * What was found where something else belongs, said in YAML's terms: a missing field, a key with
 * nothing after it (null), or an unquoted value YAML read as a number or boolean.
 */
function describeType(expected: string, input: unknown, schemaMessage: string | undefined): string {
  const wanted = EXPECTED[expected] ?? `a ${expected}`;
  // A schema message written for "missing" says what belongs here; other schema messages are the rule.
  const required = schemaMessage && REQUIRED.test(schemaMessage) ? schemaMessage.replace(REQUIRED, '') : undefined;
  const rule = schemaMessage && !REQUIRED.test(schemaMessage) ? schemaMessage : undefined;
  const what = required || wanted;
  if (input === undefined) {
    if (required !== undefined) return schemaMessage as string;
    return rule ? `is required: it ${rule}` : `is required: add it, as ${wanted}`;
  }
  if (input === null) {
    const then = rule ?? `it must be ${what}`;
    return `is empty (YAML reads a key with nothing after it as null); ${then}`;
  }
  if (expected === 'string' && (typeof input === 'number' || typeof input === 'boolean')) {
    const kind = typeof input === 'number' ? 'a number' : 'a boolean';
    const sentence = `YAML read the unquoted value as ${kind} (${String(input)}), but this field takes a string: put the value in quotes exactly as meant`;
    // A rule that already tells people to quote adds nothing; any other rule still applies.
    return rule && !/quot/i.test(rule) ? `${sentence}; it ${rule}` : sentence;
  }
  if ((expected === 'number' || expected === 'int') && typeof input === 'string' && /^-?[0-9.]+$/.test(input.trim())) {
    const sentence = `is the quoted string ${JSON.stringify(input)}, but this field takes a number: remove the quotes`;
    return rule ? `${sentence}; it ${rule}` : sentence;
  }
  return rule ? `is ${describeValue(input)}; it ${rule}` : `is ${describeValue(input)}, but must be ${what}`;
}

function describeValue(value: unknown): string {
  if (Array.isArray(value)) return 'a list';
  if (typeof value === 'object' && value !== null) return 'a mapping';
  if (typeof value === 'string') return `the string ${shown(value)}`;
  if (typeof value === 'number') return `the number ${value}`;
  if (typeof value === 'boolean') return `the boolean ${value}`;
  return `a ${typeof value}`;
}

/** A value as a message quotes it, cut short. */
function shown(value: unknown): string {
  const text = typeof value === 'string' ? JSON.stringify(value.length > 60 ? `${value.slice(0, 60)}…` : value) : String(value);
  return typeof value === 'object' && value !== null ? describeValue(value) : text;
}

function tooBig(issue: z.core.$ZodIssueTooBig): string {
  const max = Number(issue.maximum);
  const input = inputOf(issue);
  if (issue.origin === 'string') return `is too long: at most ${max} characters${typeof input === 'string' ? `, got ${input.length}` : ''}`;
  if (issue.origin === 'array' || issue.origin === 'set')
    return `has too many items: at most ${max}${Array.isArray(input) ? `, got ${input.length}` : ''}`;
  return `must be at most ${max}${typeof input === 'number' ? `; got ${input}` : ''}`;
}

function tooSmall(issue: z.core.$ZodIssueTooSmall): string {
  const min = Number(issue.minimum);
  if (issue.origin === 'string') return min === 1 ? 'must not be empty' : `is too short: at least ${min} characters`;
  if (issue.origin === 'array' || issue.origin === 'set') return min === 1 ? 'must not be an empty list' : `needs at least ${min} items`;
  return `must be at least ${min}${typeof inputOf(issue) === 'number' ? `; got ${inputOf(issue)}` : ''}`;
}
