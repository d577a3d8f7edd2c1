// The Dockerfile, checked without Docker (no engine runs here). Static checks: stages, a pinned
// base, a non-root user. Then a replay: the build stage's COPYs are applied to a temp dir with
// .dockerignore's rules (what `docker build` would send), its RUNs are executed there (npm ci
// stands in as a link to this checkout's node_modules: no registry in tests), the runtime
// stage's COPY and RUN are applied under a temp root, and the ENTRYPOINT is run from there,
// with no node_modules anywhere above it, as kpt runs an `image:` function.
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, statSync, symlinkSync } from 'node:fs';
import { dirname, join, posix, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { documentTexts, resourceList } from '../support/yaml-docs.js';
import { run } from '../support/exec.js';
import { packageFiles, tempDirs } from '../support/files.js';
import { repoPath } from '../support/paths.js';
import { parseObjects } from '../support/yaml-docs.js';

interface Instruction {
  op: string;
  args: string;
  line: number;
}
interface Stage {
  from: string;
  name?: string;
  instructions: Instruction[];
}

/** Dockerfile instructions, with continuation lines joined and comment lines dropped. */
function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
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
    } else {
      const stage = stages[stages.length - 1];
      if (!stage) throw new Error(`Dockerfile line ${start}: ${op} before FROM`);
      stage.instructions.push({ op, args, line: start });
    }
  }
  return stages;
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
const stages = parseDockerfile(dockerfile);
const final = stages[stages.length - 1] as Stage;
const build = stages.find((s) => s.name === 'build') as Stage;
const stageNames = new Set(stages.map((s) => s.name).filter(Boolean));
const of = (stage: Stage, op: string) => stage.instructions.filter((i) => i.op === op);
const workdirOf = (stage: Stage) => of(stage, 'WORKDIR').at(-1)?.args ?? '/';
const excluded = dockerignore(readFileSync(repoPath('.dockerignore'), 'utf8'));

const tmp = tempDirs('docker');
afterAll(() => tmp.cleanup());

describe('Dockerfile, statically (Docker engines do not run here)', () => {
  it('is multi-stage: a build stage, and a final stage from a clean base that only copies from it', () => {
    expect(build).toBeDefined();
    expect(stages.length).toBeGreaterThanOrEqual(2);
    expect(stageNames.has(final.from)).toBe(false);
    expect(of(final, 'COPY').map((c) => copyOf(c).from)).toEqual(['build']);
  });

  it('pins every base image to an exact version tag or a digest, the same in every stage', () => {
    const bases = stages.filter((st) => !stageNames.has(st.from)).map((s) => s.from);
    for (const base of bases) {
      expect(base, `${base} is neither an exact version tag nor a digest`).toMatch(
        /^[a-z0-9./-]+(:[A-Za-z0-9._-]*\d+\.\d+\.\d+[A-Za-z0-9._-]*(@sha256:[0-9a-f]{64})?|@sha256:[0-9a-f]{64})$/,
      );
    }
    // The V8 code cache made in the build stage is only valid for the same Node binary.
    expect(new Set(bases).size).toBe(1);
  });

  it('runs as a non-root user, and its entrypoint is render-valkey (exec form)', () => {
    const user = of(final, 'USER').at(-1)?.args;
    expect(user, 'the final stage sets USER').toBeDefined();
    expect(['root', '0']).not.toContain((user as string).split(':')[0]);
    expect(JSON.parse(of(final, 'ENTRYPOINT').at(-1)?.args ?? 'null')).toEqual(['/usr/local/bin/render-valkey']);
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

describe('Dockerfile, replayed without Docker', () => {
  let context: string;
  let root: string;

  beforeAll(async () => {
    // Build stage: WORKDIR, the COPYs through .dockerignore, the RUNs.
    context = join(tmp.make('build'), 'ctx');
    const workdir = join(context, workdirOf(build));
    mkdirSync(workdir, { recursive: true });
    for (const i of build.instructions) {
      if (i.op === 'COPY') {
        const c = copyOf(i);
        for (const src of c.sources) copyLikeDocker(src, join(workdir, c.dest), c.sources.length > 1 || c.dest.endsWith('/'));
      } else if (i.op === 'RUN') {
        if (/^npm ci\b/.test(i.args)) {
          symlinkSync(repoPath('node_modules'), join(workdir, 'node_modules'));
          continue;
        }
        const r = await run('sh', ['-c', i.args], { cwd: workdir, timeoutMs: 120_000 });
        expect(r.code, `build stage RUN ${i.args} (Dockerfile line ${i.line}):\n${r.stderr}`).toBe(0);
      }
    }
    // Runtime stage: the COPY from the build stage and the RUNs, under a temp root.
    root = join(tmp.make('root'), 'root');
    for (const i of final.instructions) {
      if (i.op === 'COPY') {
        const c = copyOf(i);
        const from = join(context, relative('/', posix.resolve(workdirOf(build), c.sources[0] as string)));
        mkdirSync(join(root, c.dest), { recursive: true });
        cpSync(from, join(root, c.dest), { recursive: true });
      } else if (i.op === 'RUN') {
        mkdirSync(join(root, 'usr/local/bin'), { recursive: true });
        const script = rooted(i.args, root);
        const r = await run('sh', ['-c', script], { timeoutMs: 60_000 });
        expect(r.code, `runtime RUN ${i.args}:\n${r.stderr}`).toBe(0);
      }
    }
  }, 180_000);

  /** COPY semantics: a directory's contents go into the destination; files go into it when it is a directory. */
  function copyLikeDocker(src: string, dest: string, destIsDir: boolean): void {
    const from = repoPath(src);
    if (statSync(from).isDirectory()) {
      const walk = (rel: string): void => {
        for (const entry of readdirSync(join(from, rel))) {
          const r = rel ? `${rel}/${entry}` : entry;
          if (excluded(posix.join(src.replace(/\/$/, ''), r))) continue;
          if (statSync(join(from, r)).isDirectory()) walk(r);
          else {
            mkdirSync(dirname(join(dest, r)), { recursive: true });
            cpSync(join(from, r), join(dest, r));
          }
        }
      };
      walk('');
    } else {
      const target = destIsDir ? join(dest, posix.basename(src)) : dest;
      mkdirSync(dirname(target), { recursive: true });
      cpSync(from, target);
    }
  }

  it('the build stage produces every bundle, and the runtime stage copies exactly dist/', () => {
    const dist = join(context, workdirOf(build), 'dist');
    const entries = readdirSync(repoPath('functions'))
      .filter((f) => f.endsWith('.ts'))
      .map((f) => f.slice(0, -3));
    const bundles = readdirSync(dist).filter((f) => /\.[cm]js$/.test(f));
    expect(bundles.map((f) => f.slice(0, -4)).sort()).toEqual(entries.sort());
    const dest = copyOf(of(final, 'COPY')[0] as Instruction).dest;
    expect(readdirSync(join(root, dest)).sort()).toEqual(readdirSync(dist).sort());
    for (const e of entries) expect(existsSync(join(root, 'usr/local/bin', e)), `/usr/local/bin/${e}`).toBe(true);
  });

  it('the entrypoint runs as a KRM function: a ResourceList in, a rendered ResourceList out', async () => {
    const entrypoint = join(root, (JSON.parse(of(final, 'ENTRYPOINT').at(-1)?.args as string) as string[])[0] as string);
    // Every object of the package, as kpt would send it (without kpt's annotations).
    const input = resourceList(packageFiles(repoPath('kptfile-examples/tshirt-sizes')).flatMap(({ text }) => documentTexts(text)));
    const r = await run(entrypoint, [], { input, cwd: root });
    expect(r.code, r.stderr).toBe(0);
    const out = parseObjects(r.stdout)[0] as unknown as { kind: string; items: { kind: string }[] };
    expect(out.kind).toBe('ResourceList');
    expect(out.items.filter((i) => i.kind === 'StatefulSet')).toHaveLength(5);
  });

  it('validate-valkey runs from the image too', async () => {
    const r = await run(join(root, 'usr/local/bin/validate-valkey'), [repoPath('kptfile-examples/team-clusters')], { cwd: root });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain('valid:');
  });
});

/** The runtime RUN with absolute image paths moved under the temp root. */
function rooted(script: string, root: string): string {
  return script.replaceAll('/opt/', `${root}/opt/`).replaceAll('/usr/local/bin/', `${root}/usr/local/bin/`);
}
