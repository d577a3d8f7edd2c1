// The Dockerfile, read as text: what the real build (scripts/build-image.sh, podman, on a local
// base; test/integration/image.test.ts) cannot show, because it builds on another base than
// the one users get: the default base is pinned and the same for both stages, the runtime stage
// only copies from the build stage, .dockerignore keeps the context to what the build copies,
// and the docs name the image alike. What the image carries and who it runs as, the real build
// and the containers of image.test.ts, kpt-image.test.ts, argocd-image.test.ts,
// kustomize-image.test.ts and controller-image.test.ts prove.
import { existsSync, readFileSync } from 'node:fs';
import { posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { repoPath } from '../support/paths.js';

interface Instruction {
  op: string;
  args: string;
  line: number;
}
interface Stage {
  /** The FROM image as written, e.g. `${BASE}`. */
  from: string;
  name?: string;
  instructions: Instruction[];
}

/**
 * Dockerfile instructions, with continuation lines joined and comment lines dropped; the ARGs
 * before the first FROM (the only ones a FROM can use), with their defaults.
 */
function parseDockerfile(text: string): { globalArgs: Map<string, string | undefined>; stages: Stage[] } {
  const stages: Stage[] = [];
  const globalArgs = new Map<string, string | undefined>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i] as string;
    const start = i + 1;
    if (/^\s*(#|$)/.test(line)) continue;
    while (/\\\s*$/.test(line) && i + 1 < lines.length) {
      line = line.replace(/\\\s*$/, ' ');
      const next = lines[++i] as string;
      if (!/^\s*#/.test(next)) line += next;
    }
    const m = /^\s*([A-Za-z]+)\s+(.*)$/.exec(line);
    if (!m) throw new Error(`Dockerfile line ${start}: cannot parse "${line}"`);
    const op = (m[1] as string).toUpperCase();
    const args = (m[2] as string).trim();
    if (op === 'FROM') {
      const from = /^(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?$/i.exec(args);
      if (!from) throw new Error(`Dockerfile line ${start}: cannot parse FROM ${args}`);
      stages.push({ from: from[1] as string, name: from[2], instructions: [] });
    } else if (op === 'ARG' && stages.length === 0) {
      const [name, value] = args.split(/=(.*)/s) as [string, string | undefined];
      globalArgs.set(name, value);
    } else {
      const stage = stages[stages.length - 1];
      if (!stage) throw new Error(`Dockerfile line ${start}: ${op} before FROM`);
      stage.instructions.push({ op, args, line: start });
    }
  }
  return { globalArgs, stages };
}

interface Copy {
  from?: string;
  sources: string[];
  dest: string;
}
function copyOf(i: Instruction): Copy {
  const words = i.args.split(/\s+/);
  const paths = words.filter((w) => !w.startsWith('--'));
  const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
  return { from, sources: paths.slice(0, -1), dest: paths[paths.length - 1] as string };
}

/**
 * .dockerignore as Docker reads it (moby/patternmatcher): every pattern is path-cleaned (so a
 * trailing "/" is dropped), `*` stays within a path segment, `**` spans segments, a pattern also
 * matches everything below a matching directory, and the last matching line wins.
 */
function dockerignore(text: string): (path: string) => boolean {
  const rules = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((l) => {
      const negate = l.startsWith('!');
      const pattern = posix.normalize((negate ? l.slice(1) : l).trim()).replace(/^\/+|\/+$/g, '');
      let source = '';
      for (let i = 0; i < pattern.length; i++) {
        const c = pattern[i] as string;
        if (c === '*' && pattern[i + 1] === '*') {
          source += '.*';
          i++;
        } else if (c === '*') source += '[^/]*';
        else if (c === '?') source += '[^/]';
        else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
      }
      return { negate, re: new RegExp(`^${source}$`) };
    });
  return (path: string) => {
    const parts = path.split('/');
    const prefixes = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
    let excluded = false;
    for (const rule of rules) if (prefixes.some((p) => rule.re.test(p))) excluded = !rule.negate;
    return excluded;
  };
}

const dockerfile = readFileSync(repoPath('Dockerfile'), 'utf8');
const { globalArgs, stages } = parseDockerfile(dockerfile);
/** A FROM as `docker build` without build arguments resolves it. */
const resolveArgs = (from: string) =>
  from.replace(/\$\{(\w+)\}|\$(\w+)/g, (_, a?: string, b?: string) => globalArgs.get((a ?? b) as string) ?? '');
const final = stages[stages.length - 1] as Stage;
const build = stages.find((s) => s.name === 'build') as Stage;
const stageNames = new Set(stages.map((s) => s.name).filter(Boolean));
const of = (stage: Stage, op: string) => stage.instructions.filter((i) => i.op === op);
const excluded = dockerignore(readFileSync(repoPath('.dockerignore'), 'utf8'));

describe('Dockerfile, as text', () => {
  it('is multi-stage: a build stage, and a final stage from a clean base that only copies from it', () => {
    expect(build).toBeDefined();
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(stageNames.has(final.from)).toBe(false);
    expect(of(final, 'COPY').map((c) => copyOf(c).from)).toEqual(['build']);
  });

  it('every stage that is not built on another starts FROM the BASE argument, so one --build-arg swaps them all', () => {
    const bases = stages.filter((st) => !stageNames.has(st.from)).map((s) => s.from);
    expect(bases.length).toBeGreaterThanOrEqual(2);
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a Dockerfile variable, not a template
    for (const base of bases) expect(base).toBe('${BASE}');
  });

  it('pins the default base image to an exact version tag or a digest, the same in every stage', () => {
    const bases = stages.filter((st) => !stageNames.has(st.from)).map((s) => resolveArgs(s.from));
    for (const base of bases) {
      expect(base, `${base} is neither an exact version tag nor a digest`).toMatch(
        /^[a-z0-9./-]+(:[A-Za-z0-9._-]*\d+\.\d+\.\d+[A-Za-z0-9._-]*(@sha256:[0-9a-f]{64})?|@sha256:[0-9a-f]{64})$/,
      );
    }
    // The V8 code cache made in the build stage is only valid for the same Node binary.
    expect(new Set(bases).size).toBe(1);
  });

  it('.dockerignore lets through every file the build stage copies, and nothing else of note', () => {
    for (const c of of(build, 'COPY').map(copyOf)) {
      for (const src of c.sources) {
        expect(existsSync(repoPath(src)), `${src} exists`).toBe(true);
        expect(excluded(src.replace(/\/$/, '')), `.dockerignore excludes ${src}`).toBe(false);
      }
    }
    for (const path of [
      'node_modules/yaml/package.json',
      'dist/render-valkey.cjs',
      'test/support/files.ts',
      '.git/HEAD',
      'test/golden/cases/tls/_expected.yaml',
    ]) {
      expect(excluded(path), path).toBe(true);
    }
    expect(excluded('functions/render-valkey.ts')).toBe(false);
  });

  it('the Kptfile examples name the image as integrations and docs do', () => {
    const image = (parse(readFileSync(repoPath('functions/render-valkey/metadata.yaml'), 'utf8')) as { image: string }).image;
    for (const file of [
      'kptfile-examples/tshirt-sizes/Kptfile',
      'integrations/argocd/repo-server-patch.yaml',
      'integrations/flux/github-actions-workflow.yaml',
    ]) {
      expect(readFileSync(repoPath(file), 'utf8'), file).toContain(`${image}:0.1.0`);
    }
  });
});
