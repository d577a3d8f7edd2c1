// The bundled executables, end to end through stdin/stdout and files.
import { readFileSync, writeFileSync, cpSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { run } from '../support/exec.js';
import { RENDER, VALIDATE } from '../support/paths.js';
import { documentTexts, resourceList } from '../support/yaml-docs.js';
import { lowerImageVersion, tempDirs } from '../support/files.js';
import { clusterObjects, menuObjects, resourceListText } from '../../bench/generate.js';
import { runResourceList } from '../../src/krm/resource-list.js';

const EXAMPLE = 'kptfile-examples/tshirt-sizes';
const golden = (name: string) => readFileSync(`test/golden/cases/${name}/_expected.yaml`, 'utf8');

const tmp = tempDirs('e2e');
afterAll(() => tmp.cleanup());

describe('render-valkey as a KRM function (stdin → stdout)', () => {
  it('renders a ResourceList exactly as the in-process pipeline does', async () => {
    const input = readFileSync('test/golden/cases/guide-standard/resources.yaml', 'utf8');
    const fn = readFileSync('test/golden/cases/guide-standard/_fnconfig.yaml', 'utf8');
    const r = await run(process.execPath, [RENDER], { input: resourceList(documentTexts(input), fn) });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(golden('guide-standard'));
  });

  it('exits 1 with results and a report on stderr for an invalid menu', async () => {
    const input = readFileSync('test/golden/cases/error-missing-image/resources.yaml', 'utf8');
    const fn = readFileSync('test/golden/cases/error-missing-image/_fnconfig.yaml', 'utf8');
    const r = await run(process.execPath, [RENDER], { input: resourceList(documentTexts(input), fn) });
    expect(r.code).toBe(1);
    expect(r.stdout).toBe(golden('error-missing-image'));
    expect(r.stderr).toContain('error: ValkeyConfig next: spec.imageRef: ValkeyImage "valkey-9-1" does not exist');
    expect(r.stderr).toMatch(/render-valkey: 2 errors, 0 warnings, 0 infos; nothing was rendered\n$/);
  });

  it('never prints a stack trace, even for garbage', async () => {
    const r = await run(process.execPath, [RENDER], { input: '\u0000\u0001{{{ not yaml' });
    expect(r.code).toBe(1);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    expect((parse(r.stdout) as { items: unknown[] }).items).toEqual([]);
  });
});

describe('plain-files mode', () => {
  it('renders a package directory into multi-document YAML without the local config', async () => {
    const r = await run(process.execPath, [RENDER, EXAMPLE]);
    expect(r.code).toBe(0);
    const docs = parseAllDocuments(r.stdout).map((d) => d.toJS() as { kind: string; metadata: { name: string } });
    const kinds = docs.map((d) => d.kind);
    expect(kinds).not.toContain('ValkeyRenderConfig');
    expect(kinds).not.toContain('Kptfile');
    expect(kinds.filter((k) => k === 'StatefulSet').length).toBeGreaterThan(0);
    expect(kinds).toContain('ValkeyCluster');
    // The platform team's own documents come out as they are written, comments included.
    const images = readFileSync(join(EXAMPLE, 'images.yaml'), 'utf8');
    expect(r.stdout).toContain(images);
    expect(r.stdout).not.toContain('config.kubernetes.io/path');
    expect(r.stderr).toMatch(/rendered \d+ clusters into \d+ objects\n$/);
  });

  it('is deterministic whatever order the files are named in', async () => {
    const a = await run(process.execPath, [
      RENDER,
      join(EXAMPLE, 'images.yaml'),
      join(EXAMPLE, 'configs.yaml'),
      join(EXAMPLE, 'roles.yaml'),
      join(EXAMPLE, 'clusters.yaml'),
      join(EXAMPLE, 'render-config.yaml'),
    ]);
    const b = await run(process.execPath, [
      RENDER,
      join(EXAMPLE, 'render-config.yaml'),
      join(EXAMPLE, 'clusters.yaml'),
      join(EXAMPLE, 'roles.yaml'),
      join(EXAMPLE, 'images.yaml'),
      join(EXAMPLE, 'configs.yaml'),
    ]);
    expect(a.code).toBe(0);
    expect(b.stdout).toBe(a.stdout);
  });

  it('on error prints nothing on stdout (an empty render plus prune would delete everything)', async () => {
    const dir = tmp.make('broken');
    cpSync(EXAMPLE, dir, { recursive: true });
    lowerImageVersion(join(dir, 'images.yaml'));
    const r = await run(process.execPath, [RENDER, dir]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain('error: ValkeyImage valkey-9-0: spec.version: must be at least 9.0.1');
    expect(r.stderr).toContain(`in ${join(dir, 'images.yaml')}`);
  });

  it('reads multi-document YAML from stdin with --config', async () => {
    const input = ['images.yaml', 'configs.yaml', 'roles.yaml', 'clusters.yaml']
      .map((f) => readFileSync(join(EXAMPLE, f), 'utf8'))
      .join('---\n');
    const r = await run(process.execPath, [RENDER, '--config', join(EXAMPLE, 'render-config.yaml'), '-'], { input });
    expect(r.code).toBe(0);
    const fromDir = await run(process.execPath, [RENDER, EXAMPLE]);
    const kinds = (s: string) =>
      parseAllDocuments(s)
        .map((d) => (d.toJS() as { kind: string }).kind)
        .filter((k) => k !== 'ValkeyRenderConfig');
    expect(kinds(r.stdout).sort()).toEqual(kinds(fromDir.stdout).sort());
  });

  it('reports a missing path plainly', async () => {
    const r = await run(process.execPath, [RENDER, 'no/such/dir']);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/^render-valkey: cannot read no\/such\/dir: ENOENT/);
  });
});

describe('validate-valkey', () => {
  it('passes a valid package, printing nothing on stdout', async () => {
    const r = await run(process.execPath, [VALIDATE, EXAMPLE]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('');
    expect(r.stderr).toMatch(/valid: 1 image, 3 configs, 1 role, 2 clusters\n$/);
  });

  it('returns ResourceList items unchanged', async () => {
    const r = await run(process.execPath, [VALIDATE], { input: golden('guide-large') });
    // The golden output has no function config, so validation reports exactly that.
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('No render config');
  });
});

/**
 * Renders `clusters` generated clusters under a python3 parent, for stdio Node cannot set up:
 * Node's child_process makes a child's stdio blocking, and python3 is among this machine's tools.
 * `plumbing` runs with a pipe `r, w`, the render's command in sys.argv[1:3], the input file in
 * sys.argv[3] and an output file in sys.argv[4]; it must start the render as `p`.
 */
async function renderUnderPython(clusters: number, plumbing: string[]) {
  const dir = tmp.make('python');
  const input = resourceListText([...menuObjects(), ...clusterObjects(clusters)]);
  writeFileSync(join(dir, 'in.yaml'), input);
  const script = ['import fcntl, os, subprocess, sys, time', 'r, w = os.pipe()', ...plumbing, 'sys.exit(p.wait())'].join('\n');
  const r = await run('python3', ['-c', script, process.execPath, RENDER, join(dir, 'in.yaml'), join(dir, 'out.yaml')]);
  return { r, input, output: () => readFileSync(join(dir, 'out.yaml'), 'utf8') };
}

/** Python that sets O_NONBLOCK on a pipe end. */
const nonBlocking = (fd: string) => `fcntl.fcntl(${fd}, fcntl.F_SETFL, fcntl.fcntl(${fd}, fcntl.F_GETFL) | os.O_NONBLOCK)`;

describe('start-up and output', () => {
  it('starts from the code caches built with it, and loads the yaml package only when it needs it', async () => {
    const env = { ...process.env, VALKEY_KRM_CACHE_REPORT: '1' };
    const krm = await run(process.execPath, [RENDER], { env, input: resourceListText([...menuObjects(), ...clusterObjects(1)]) });
    expect(krm.code, krm.stderr).toBe(0);
    expect(krm.stderr).toBe('code cache krm.cjs: accepted\n');
    // Plain files take the fast reader too.
    const plain = await run(process.execPath, [RENDER, EXAMPLE], { env });
    expect(plain.code, plain.stderr).toBe(0);
    expect(plain.stderr).toMatch(/^code cache krm\.cjs: accepted\n/);
    expect(plain.stderr).not.toContain('yaml.cjs');
    // A flow mapping is for the full parser, the `yaml` package, loaded with its own cache.
    const flow = resourceListText([...menuObjects(), ...clusterObjects(1)]).replace(
      'items:\n',
      'items:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: flow}}\n',
    );
    const full = await run(process.execPath, [RENDER], { env, input: flow });
    expect(full.code, full.stderr).toBe(0);
    expect(full.stderr).toBe('code cache krm.cjs: accepted\ncode cache yaml.cjs: accepted\n');
  });

  it('writes a render of many MiB completely through a pipe, exactly as in process', async () => {
    const input = resourceListText([...menuObjects(), ...clusterObjects(300)]);
    const r = await run(process.execPath, [RENDER], { input });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.length).toBeGreaterThan(6_000_000);
    expect(r.stdout).toBe(runResourceList(input, 'render-valkey').stdout);
  });

  it('finishes its output on a non-blocking stdout that fills up (EAGAIN), by falling back to a stream', async () => {
    const { r, input, output } = await renderUnderPython(100, [
      nonBlocking('w'),
      'p = subprocess.Popen(sys.argv[1:3], stdin=open(sys.argv[3], "rb"), stdout=w)',
      'os.close(w)',
      'time.sleep(0.5)',
      'out = open(sys.argv[4], "wb")',
      'while True:',
      '    b = os.read(r, 1 << 16)',
      '    if not b: break',
      '    out.write(b)',
      'out.close()',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(output()).toBe(runResourceList(input, 'render-valkey').stdout);
  });

  it('reads all of a non-blocking stdin that arrives in parts, keeping what came before EAGAIN', async () => {
    const { r, input, output } = await renderUnderPython(50, [
      nonBlocking('r'),
      'p = subprocess.Popen(sys.argv[1:3], stdin=r, stdout=open(sys.argv[4], "wb"))',
      'os.close(r)',
      'data = open(sys.argv[3], "rb").read()',
      'os.write(w, data[:4096])',
      'time.sleep(0.5)',
      'view = memoryview(data)[4096:]',
      'while view:',
      '    n = os.write(w, view[:65536])',
      '    view = view[n:]',
      'os.close(w)',
    ]);
    expect(r.code, r.stderr).toBe(0);
    expect(output()).toBe(runResourceList(input, 'render-valkey').stdout);
  });

  it('passes non-ASCII text through exactly, wherever it falls among the megabytes read', async () => {
    const functionConfig = `functionConfig:\n${resourceListText([]).split('\nfunctionConfig:\n')[1]}`;
    const head =
      'apiVersion: config.kubernetes.io/v1\nkind: ResourceList\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n  metadata:\n    name: notes\n  data:\n    text: "';
    // stdin is read a mebibyte at a time: put "é" across that boundary, then right after it.
    for (const shift of [1, 0]) {
      const pad = 'x'.repeat((1 << 20) - Buffer.byteLength(head) - shift);
      const item = `${head}${pad}é → ü"\n`;
      const r = await run(process.execPath, [RENDER], { input: `${item}${functionConfig}` });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout.split('\nitems:\n')[1]?.startsWith(item.split('items:\n')[1] as string)).toBe(true);
    }
  });

  it('stops quietly when the reader goes away', async () => {
    const dir = tmp.make('pipe');
    writeFileSync(join(dir, 'in.yaml'), resourceListText([...menuObjects(), ...clusterObjects(300)]));
    const script = `"${process.execPath}" ${RENDER} < "${dir}/in.yaml" 2> "${dir}/err" | head -c 100 > /dev/null; cat "${dir}/err"`;
    const r = await run('sh', ['-c', script]);
    expect(r.stdout).toBe('');
  });
});

describe('usage', () => {
  it.each([RENDER, VALIDATE])('%s --help explains both modes and exits 0', async (exe) => {
    const r = await run(process.execPath, [exe, '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('Usage:');
    expect(r.stdout).toContain('PATH...');
  });
  it('--version', async () => {
    expect((await run(process.execPath, [RENDER, '--version'])).stdout).toMatch(/^render-valkey \d+\.\d+\.\d+\n$/);
  });
  it('an unknown option is a usage error, exit 2', async () => {
    const r = await run(process.execPath, [RENDER, '--frobnicate']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('unknown option --frobnicate');
  });
});
