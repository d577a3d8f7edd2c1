// The one-way layering of src/ (README, "Developing"): each room imports only the rooms above it.
// A crossing import is the first step of a tangle that no review catches later, so this test
// lists every import in src/ and functions/ and fails on any that a room's rule does not allow.
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT as ROOT } from '../support/paths.js';
import { typeScriptFiles } from '../support/files.js';
import { importsOf } from '../support/imports.js';

/** Absolute paths of the TypeScript files under a directory of the repository. */
const sources = (dir: string): string[] => typeScriptFiles(dir).map((file) => join(ROOT, file));

/** The room a file under src/ belongs to: `api`, `krm`, `controller/cluster`, `controller` (its top)... */
function roomOf(file: string): string {
  const parts = relative(join(ROOT, 'src'), file).split('/');
  if (parts[0] === 'controller' && parts.length > 2) return `controller/${parts[1]}`;
  return parts[0] as string;
}

/** What a specifier names: a room of src/, `package.json`, a `node:` module or an npm package. */
function targetOf(from: string, specifier: string): string {
  if (!specifier.startsWith('.')) return specifier;
  const target = resolve(dirname(from), specifier);
  const inSrc = relative(join(ROOT, 'src'), target);
  if (inSrc.startsWith('..')) return relative(ROOT, target);
  return roomOf(target);
}

const PURE = ['zod/mini', 'zod/v4/locales/en.js', 'package.json'];
const CONTROLLER_IO = ['node:net', 'node:tls', 'node:http', 'node:https', 'node:crypto', 'node:fs/promises'];

/**
 * Per room, what it may import besides itself. The core (api, menu, render, plan and the
 * controller's decisions) is pure: no node: module does I/O there; only `node:crypto`, loaded on
 * first use to hash rendered files, is allowed in render.
 */
const ALLOWED: Record<string, readonly string[]> = {
  api: PURE,
  menu: ['api', ...PURE],
  render: ['api', 'menu', 'node:crypto'],
  plan: ['api', 'menu', 'render', 'node:crypto', ...PURE],
  krm: [
    'api',
    'menu',
    'render',
    'plan',
    'yaml',
    'node:fs',
    'node:path',
    'node:buffer',
    'node:util',
    'node:os',
    'node:child_process',
    'node:crypto',
    'node:tty',
    'node:module',
  ],
  'controller/cluster': ['api'],
  'controller/runtime': ['api', 'prom-client', 'node:http', 'node:net'],
  'controller/kube': ['api', 'controller/runtime', '@kubernetes/client-node', 'node:http', 'node:https'],
  'controller/valkey': ['api', 'controller/cluster', 'controller/runtime', 'controller/kube', ...CONTROLLER_IO],
  'controller/reconcile': ['api', 'controller/cluster', 'controller/runtime', 'controller/kube', 'controller/valkey'],
  controller: [
    'api',
    'controller/cluster',
    'controller/runtime',
    'controller/kube',
    'controller/valkey',
    'controller/reconcile',
    '@kubernetes/client-node',
    'node:crypto',
    'node:fs/promises',
    'node:os',
    'node:util',
  ],
};

function crossings(): string[] {
  const out: string[] = [];
  for (const file of sources('src')) {
    const room = roomOf(file);
    const allowed = ALLOWED[room];
    if (!allowed) {
      out.push(`${relative(ROOT, file)}: room "${room}" has no rule in this test; add one`);
      continue;
    }
    for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
      const target = targetOf(file, specifier);
      if (target !== room && !allowed.includes(target)) out.push(`${relative(ROOT, file)} imports ${specifier} (${target})`);
    }
  }
  // Entry points wire I/O to the core; they never reach into one room's insides but through it.
  for (const file of sources('functions')) {
    for (const specifier of importsOf(readFileSync(file, 'utf8'))) {
      if (!/^\.\.\/src\/(krm\/cli\/main|controller\/main)\.js$/.test(specifier)) out.push(`${relative(ROOT, file)} imports ${specifier}`);
    }
  }
  return [...new Set(out)].sort();
}

describe('one-way layering of src/', () => {
  it('no import crosses a room boundary the wrong way', () => {
    expect(crossings()).toEqual([]);
  });

  it('finds imports in every form the code uses', () => {
    const text = [
      "import type { A } from '../api/index.js';",
      "import {\n  b,\n  c,\n} from './b.js';",
      "export * from './order.js';",
      "const m = await import('./lazy.js');",
      "process.getBuiltinModule('node:crypto');",
      "import './side-effect.js';",
    ].join('\n');
    expect(importsOf(text)).toEqual(['../api/index.js', './b.js', './order.js', './side-effect.js', './lazy.js', 'node:crypto']);
  });

  it('tells a file its room', () => {
    expect(roomOf(join(ROOT, 'src/controller/cluster/formation.ts'))).toBe('controller/cluster');
    expect(roomOf(join(ROOT, 'src/controller/main.ts'))).toBe('controller');
    expect(roomOf(join(ROOT, 'src/krm/yaml/emitter.ts'))).toBe('krm');
    expect(targetOf(join(ROOT, 'src/controller/main.ts'), '../render/object.js')).toBe('render');
  });
});
