// The JSON output's documented schema: src/plan/plan.schema.json is generated from the zod schema,
// and every golden plan validates against the JSON Schema file itself, with an independent
// validator (Python's jsonschema), so the file documents what the code writes.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { planJsonSchema, planSchema } from '../../src/plan/index.js';

const SCHEMA_PATH = join(import.meta.dirname, '../../src/plan/plan.schema.json');
const cases = join(import.meta.dirname, 'cases');
const goldens = readdirSync(cases)
  .sort()
  .map((c) => join(cases, c, '_expected.json'));

const VALIDATE = `
import json, sys
from jsonschema import Draft202012Validator
schema = json.load(open(sys.argv[1]))
Draft202012Validator.check_schema(schema)
validator = Draft202012Validator(schema)
failed = 0
for path in sys.argv[2:]:
    for error in validator.iter_errors(json.load(open(path))):
        failed += 1
        print(f"{path}: {'/'.join(map(str, error.absolute_path))}: {error.message}")
sys.exit(1 if failed else 0)
`;
const validate = (...paths: string[]) => spawnSync('python3', ['-c', VALIDATE, SCHEMA_PATH, ...paths], { encoding: 'utf8' });

describe('the plan JSON schema', () => {
  it('src/plan/plan.schema.json is up to date (npx tsx scripts/gen-plan-schema.ts)', () => {
    expect(readFileSync(SCHEMA_PATH, 'utf8')).toBe(`${JSON.stringify(planJsonSchema(), null, 2)}\n`);
  });

  it('accepts every golden plan, by the zod schema', () => {
    for (const path of goldens) expect(planSchema().safeParse(JSON.parse(readFileSync(path, 'utf8'))).success, path).toBe(true);
  });

  it('rejects a plan with an unknown verdict or a missing field, by the zod schema', () => {
    const plan = JSON.parse(readFileSync(goldens.find((g) => g.includes('shards-up')) as string, 'utf8'));
    expect(planSchema().safeParse({ ...plan, clusters: [{ ...plan.clusters[0], verdict: 'maybe' }] }).success).toBe(false);
    const { summary: _summary, ...withoutSummary } = plan;
    expect(planSchema().safeParse(withoutSummary).success).toBe(false);
  });

  // Python's jsonschema (Debian's python3-jsonschema, installed by scripts/test-all.sh) is an
  // independent reader of the file.
  it('accepts every golden plan, by the JSON Schema file (python3 jsonschema)', () => {
    const out = validate(...goldens);
    expect(out.stdout + out.stderr).toBe('');
    expect(out.status).toBe(0);
  });

  it('rejects a broken plan, by the JSON Schema file', () => {
    const plan = JSON.parse(readFileSync(goldens.find((g) => g.includes('shards-up')) as string, 'utf8'));
    plan.clusters[0].verdict = 'maybe';
    plan.counts.extra = 1;
    const out = spawnSync(
      'python3',
      ['-c', `${VALIDATE.replace('json.load(open(path))', 'json.loads(sys.stdin.read())')}`, SCHEMA_PATH, '-'],
      { input: JSON.stringify(plan), encoding: 'utf8' },
    );
    expect(out.status).toBe(1);
    expect(out.stdout).toContain("'maybe' is not one of");
    expect(out.stdout).toContain('extra');
  });
});
