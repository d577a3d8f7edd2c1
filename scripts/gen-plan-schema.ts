// Writes src/plan/plan.schema.json from the zod schema in src/plan/plan-schema.ts. `--check` fails
// if the committed file differs (test/plan/schema.test.ts checks the same).
import { readFile, writeFile } from 'node:fs/promises';
import { planJsonSchema } from '../src/plan/plan-schema.js';

const PATH = 'src/plan/plan.schema.json';
const text = `${JSON.stringify(planJsonSchema(), null, 2)}\n`;
const current = await readFile(PATH, 'utf8').catch(() => '');
if (current === text) process.exit(0);
if (process.argv.includes('--check')) {
  console.error(`${PATH} is out of date: run npx tsx scripts/gen-plan-schema.ts`);
  process.exit(1);
}
await writeFile(PATH, text);
console.log(`wrote ${PATH}`);
