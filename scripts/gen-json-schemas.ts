// Writes schemas/<group>/<kind>_<version>.json: JSON Schemas of the four kinds and of
// ValkeyRenderConfig, from the same zod schemas the function validates with, for editors
// (yaml-language-server) and kubeconform. `--check` fails if a committed file differs.
// The layout is kubeconform's for custom resources: {{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import * as z from 'zod/mini';
import { KINDS } from '../src/api/crd.js';
import { API_VERSION, GROUP, VERSION } from '../src/api/group.js';
import { renderConfig } from '../src/api/render-config.js';
import { objectMeta } from '../src/api/common.js';

type Schema = Record<string, unknown>;
const jsonSchema = (s: z.ZodMiniType): Schema => {
  const out = z.toJSONSchema(s, { target: 'draft-7', io: 'input', unrepresentable: 'any' }) as Schema;
  delete out.$schema;
  return out;
};

/** A whole object of one kind: apiVersion and kind fixed, the spec as the function reads it. */
function objectSchema(kind: string, description: string, spec: z.ZodMiniType, status?: z.ZodMiniType): Schema {
  return {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: kind,
    description,
    type: 'object',
    required: ['apiVersion', 'kind', 'metadata', 'spec'],
    properties: {
      apiVersion: { const: API_VERSION },
      kind: { const: kind },
      metadata: jsonSchema(objectMeta()),
      spec: jsonSchema(spec),
      ...(status ? { status: jsonSchema(status) } : { status: { type: 'object' } }),
    },
    additionalProperties: false,
  };
}

const schemas: Array<[string, Schema]> = KINDS.map((k) => [k.kind, objectSchema(k.kind, k.description, k.spec, k.status)]);
schemas.push([
  'ValkeyRenderConfig',
  {
    $schema: 'http://json-schema.org/draft-07/schema#',
    title: 'ValkeyRenderConfig',
    description: "The render function's configuration (local config: read by render-valkey, never applied).",
    ...jsonSchema(renderConfig()),
  },
]);

const check = process.argv.includes('--check');
let stale = 0;
await mkdir(`schemas/${GROUP}`, { recursive: true });
for (const [kind, schema] of schemas) {
  const path = `schemas/${GROUP}/${kind.toLowerCase()}_${VERSION}.json`;
  const text = `${JSON.stringify(schema, null, 2)}\n`;
  const current = await readFile(path, 'utf8').catch(() => '');
  if (current === text) continue;
  if (check) {
    console.error(`${path} is out of date: run npm run gen:schemas`);
    stale++;
  } else {
    await writeFile(path, text);
    console.log(`wrote ${path}`);
  }
}
process.exit(stale ? 1 : 0);
