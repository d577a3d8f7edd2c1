// Writes docs/api-reference.md from the CRD schemas in crds/ and the render config's JSON Schema
// in schemas/ (both generated from the zod schemas in src/api/), so every field, type, bound and
// description a user reads is the one the API server and the function enforce. `--check` fails
// if the committed page differs. Run it after `npm run gen:crds` and `npm run gen:schemas`.
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { parse } from 'yaml';

type Schema = {
  type?: string;
  description?: string;
  properties?: Record<string, Schema>;
  additionalProperties?: Schema | boolean;
  items?: Schema;
  required?: string[];
  enum?: unknown[];
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  minProperties?: number;
  maxProperties?: number;
  pattern?: string;
  const?: unknown;
  'x-kubernetes-int-or-string'?: boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
  'x-kubernetes-validations'?: Array<{ rule: string; message?: string; fieldPath?: string }>;
};

const OUT = 'docs/api-reference.md';

/** Patterns shared by many fields, named once instead of printed as regular expressions. */
const NAMED_PATTERNS: Record<string, string> = {
  '^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$': 'a DNS-1123 name',
  '^[0-9a-f]{64}$': '64 lowercase hex digits (a SHA-256)',
  '^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$': 'a label value',
  '^[^\\x00-\\x20\\x7f-\\x9f"\']+$': 'no spaces, quotes or control characters',
};

const code = (s: string): string => `\`${s}\``;
const cell = (s: string): string => s.replaceAll('|', '\\|').replaceAll('\n', ' ');

function typeOf(s: Schema): string {
  if (s['x-kubernetes-int-or-string']) return 'integer or string';
  if (s.type === 'array') return `list of ${s.items ? typeOf(s.items) : 'any'}`;
  if (s.type === 'object' && s.additionalProperties && typeof s.additionalProperties === 'object' && !s.properties)
    return `map of ${typeOf(s.additionalProperties)}`;
  return s.type ?? 'any';
}

function bounds(s: Schema): string[] {
  const out: string[] = [];
  const range = (lo: number | undefined, hi: number | undefined, unit: string): void => {
    if (lo !== undefined && hi !== undefined) out.push(`${lo}–${hi}${unit}`);
    else if (lo !== undefined) out.push(`at least ${lo}${lo === 1 ? unit.replace(/s$/, '') : unit}`);
    else if (hi !== undefined) out.push(`at most ${hi}${unit}`);
  };
  range(s.minimum, s.maximum, '');
  range(s.minLength, s.maxLength, ' characters');
  range(s.minItems, s.maxItems, ' items');
  range(s.minProperties, s.maxProperties, ' keys');
  if (s.enum) out.push(`one of ${s.enum.map((v) => code(String(v))).join(', ')}`);
  if (s.pattern) out.push(NAMED_PATTERNS[s.pattern] ?? (s.pattern.length <= 60 ? `matches ${code(s.pattern)}` : 'a pattern (see the CRD)'));
  const values = typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined;
  if (values && !values.properties && bounds(values).length > 0) out.push(`each value: ${bounds(values).join(', ')}`);
  if (s.default !== undefined && JSON.stringify(s.default) !== '{}') out.push(`default ${code(JSON.stringify(s.default))}`);
  // A field with many rules (spec.valkey: one per enumerated setting) is summed up, not listed.
  const rules = (s['x-kubernetes-validations'] ?? []).filter((v) => !v.fieldPath && v.message);
  if (rules.length > 3) out.push(`${rules.length} rules checked at admission (see the CRD), among them: ${rules[0]?.message}`);
  else for (const v of rules) out.push(v.message as string);
  return out;
}

interface Row {
  path: string;
  schema: Schema;
  required: boolean;
}

/** Every field under `s`, depth first in schema order; list items as `path[]`, map values as `path.<key>`. */
function rows(s: Schema, path: string, required: boolean, out: Row[]): Row[] {
  out.push({ path, schema: s, required });
  const inner = s.type === 'array' ? s.items : s;
  const at = s.type === 'array' ? `${path}[]` : path;
  if (inner?.properties)
    for (const [name, child] of Object.entries(inner.properties)) rows(child, `${at}.${name}`, (inner.required ?? []).includes(name), out);
  else if (inner && typeof inner.additionalProperties === 'object' && inner.additionalProperties.properties)
    rows(inner.additionalProperties, `${at}.<key>`, false, out);
  return out;
}

/** Rules between fields (a CEL rule with a fieldPath), under the table: the field they name and their message. */
function crossFieldRules(s: Schema, path: string, out: string[]): string[] {
  for (const v of s['x-kubernetes-validations'] ?? [])
    if (v.fieldPath && v.message) out.push(`- ${code(`${path}${v.fieldPath}`)}: ${v.message}`);
  const inner = s.type === 'array' ? s.items : s;
  const at = s.type === 'array' ? `${path}[]` : path;
  for (const [name, child] of Object.entries(inner?.properties ?? {})) crossFieldRules(child, `${at}.${name}`, out);
  return out;
}

function table(spec: Schema): string[] {
  const lines = ['| field | type | required | accepts | description |', '| --- | --- | --- | --- | --- |'];
  for (const r of rows(spec, 'spec', true, []).slice(1))
    lines.push(
      `| ${code(r.path)} | ${typeOf(r.schema)} | ${r.required ? 'yes' : ''} | ${cell(bounds(r.schema).join('; '))} | ${cell(r.schema.description ?? '')} |`,
    );
  const rules = crossFieldRules(spec, 'spec', []);
  if (rules.length > 0) lines.push('', 'Rules between fields, checked at admission and by the function:', '', ...rules);
  return lines;
}

async function page(): Promise<string> {
  const out = [
    '# API reference',
    '',
    '<!-- Generated by `npm run gen:api-reference` (scripts/gen-api-reference.ts) from crds/ and schemas/. Do not edit by hand. -->',
    '',
    'Every field of the four kinds (`valkey.gomomento.com/v1alpha1`) and of the render config, with the',
    'bounds the API server and the function enforce. What each kind is for and how the pieces fit:',
    '[reference.md](reference.md); what `status` says: [status.md](status.md).',
    '',
  ];
  const files = (await readdir('crds')).filter((f) => f.endsWith('.yaml')).sort();
  const crds = await Promise.all(files.map(async (f) => parse(await readFile(`crds/${f}`, 'utf8'))));
  const order = ['ValkeyImage', 'ValkeyConfig', 'ValkeyRole', 'ValkeyCluster'];
  crds.sort((a, b) => order.indexOf(a.spec.names.kind) - order.indexOf(b.spec.names.kind));
  for (const crd of crds) {
    const version = crd.spec.versions[0];
    const root = version.schema.openAPIV3Schema as Schema;
    const spec = root.properties?.spec as Schema;
    const names = crd.spec.names;
    out.push(`## ${names.kind}`, '');
    out.push(
      `${root.description ?? ''} ${crd.spec.scope === 'Namespaced' ? 'Namespaced' : 'Cluster-scoped'}; \`kubectl get ${names.plural}\`${names.shortNames ? ` (short name ${names.shortNames.map(code).join(', ')})` : ''}.`,
      '',
    );
    out.push(...table(spec), '');
  }
  const render = JSON.parse(await readFile('schemas/valkey.gomomento.com/valkeyrenderconfig_v1alpha1.json', 'utf8')) as Schema;
  out.push('## ValkeyRenderConfig', '', `${render.description ?? ''} Not a CRD: it is the function's config.`, '');
  out.push(...table(render.properties?.spec as Schema), '');
  return `${out.join('\n').replace(/\n+$/, '')}\n`;
}

const text = await page();
const current = await readFile(OUT, 'utf8').catch(() => '');
if (current !== text) {
  if (process.argv.includes('--check')) {
    console.error(`${OUT} is out of date: run npm run gen:api-reference`);
    process.exit(1);
  }
  await writeFile(OUT, text);
  console.log(`wrote ${OUT}`);
}
