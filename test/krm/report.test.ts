// The report people read on stderr: causes before what they cause, places named, counts in words.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { runPlainFiles, type InputFile } from '../../src/krm/plain-files.js';
import { STDIN_PATH, successText } from '../../src/krm/report.js';
import { runFunction } from '../../src/krm/run-function.js';
import { cluster, config, guideMenu, image, renderConfigObject } from '../support/objects.js';

const EXAMPLE = 'kptfile-examples/tshirt-sizes';
const exampleFiles = (): InputFile[] =>
  ['images.yaml', 'configs.yaml', 'roles.yaml', 'clusters.yaml', 'render-config.yaml'].map((f) => ({
    path: join(EXAMPLE, f),
    text: readFileSync(join(EXAMPLE, f), 'utf8'),
  }));
const yamlFile = (path: string, objects: unknown[]): InputFile => ({ path, text: objects.map((o) => stringify(o)).join('---\n') });
const errorLines = (stderr: string) => stderr.split('\n').filter((l) => l.startsWith('error: '));

describe('the report leads with the cause', () => {
  it('an image below the floor comes first; the clusters it breaks follow and say "caused by"', () => {
    const files = exampleFiles().map((f) => (f.path.endsWith('images.yaml') ? { ...f, text: f.text.replaceAll('"9.0.1"', '"9.0.0"') } : f));
    const out = runPlainFiles(files, 'render-valkey');
    expect(out.exitCode).toBe(1);
    const errors = errorLines(out.stderr);
    expect(errors).toHaveLength(3);
    expect(errors[0]).toMatch(/^error: ValkeyImage valkey-9-0: spec\.version: must be at least 9\.0\.1/);
    for (const dependent of errors.slice(1)) expect(dependent).toContain('caused by its image: ValkeyImage valkey-9-0');
  });

  it('a chain of causes stays together, deepest last, whatever the kinds sort as', () => {
    const objects = [
      image('img'),
      config('broken', { imageRef: 'img', resources: { cpu: 'lots' } }),
      config('child', { baseRef: 'broken' }),
      cluster('a', { configRef: 'child' }),
      config('zz', { baseRef: 'nowhere', imageRef: 'img' }),
      renderConfigObject(),
    ];
    const errors = errorLines(runPlainFiles([yamlFile('in.yaml', objects)], 'render-valkey').stderr).map((l) => l.slice(0, 60));
    expect(errors).toEqual([
      expect.stringContaining('ValkeyConfig broken: spec.resources.cpu'),
      expect.stringContaining('ValkeyConfig child: spec.baseRef'),
      expect.stringContaining('ValkeyCluster team-a/a: spec.configRef'),
      expect.stringContaining('ValkeyConfig zz: spec.baseRef'),
    ]);
  });
});

describe('one pass, with lines: every finding of an object at once, each at its line and column', () => {
  it("a config's bad resources do not hide what is wrong with its settings, and each finding names its line", () => {
    const text = [
      'apiVersion: valkey.gomomento.com/v1alpha1',
      'kind: ValkeyConfig',
      'metadata:',
      '  name: standard',
      'spec:',
      '  imageRef: valkey-9-0',
      '  resources:',
      '    cpu: lots',
      '    memory: 2Gi',
      '  valkey:',
      '    maxmemory-polcy: allkeys-lru',
      '    requirepass: x',
      '',
    ].join('\n');
    const out = runPlainFiles(
      [{ path: 'menu.yaml', text }, yamlFile('rest.yaml', [image('valkey-9-0'), renderConfigObject()])],
      'render-valkey',
    );
    const lines = out.stderr.split('\n');
    const at = (start: string) => lines[lines.findIndex((l) => l.startsWith(start)) + 1];
    expect(at('error: ValkeyConfig standard: spec.resources.cpu:')).toBe('  in menu.yaml:8:5');
    expect(at('error: ValkeyConfig standard: spec.valkey.maxmemory-polcy: not a Valkey setting; did you mean "maxmemory-policy"?')).toBe(
      '  in menu.yaml:11:5',
    );
    expect(at('error: ValkeyConfig standard: spec.valkey.requirepass: refused')).toBe('  in menu.yaml:12:5');
  });

  it("a role's bad category entry does not hide a misspelt command", () => {
    const text = [
      'apiVersion: valkey.gomomento.com/v1alpha1',
      'kind: ValkeyRole',
      'metadata:',
      '  name: cleaner',
      'spec:',
      '  categories:',
      '    - name: read',
      '      access: maybe',
      '  commands:',
      '    - name: flushal',
      '      access: allow',
      '',
    ].join('\n');
    const out = runPlainFiles([{ path: 'roles.yaml', text }, yamlFile('rest.yaml', [renderConfigObject()])], 'render-valkey');
    const lines = out.stderr.split('\n');
    const at = (start: string) => lines[lines.findIndex((l) => l.startsWith(start)) + 1];
    expect(at('error: ValkeyRole cleaner: spec.categories[0].access: must be allow or deny')).toBe('  in roles.yaml:8:7');
    expect(at('error: ValkeyRole cleaner: spec.commands[0].name: "flushal"')).toBe('  in roles.yaml:10:7');
  });
});

describe('where: the file and the object', () => {
  it('one name defined in two files names both places, and reads the same whatever the file order', () => {
    const a = yamlFile('a.yaml', [...guideMenu(), renderConfigObject()]);
    const b = yamlFile('b.yaml', [image('other'), config('standard', { imageRef: 'other' })]);
    const first = runPlainFiles([a, b], 'render-valkey');
    expect(first.stderr).toContain(
      'error: ValkeyConfig standard is defined 2 times; names must be unique, so keep one and remove or rename the others\n  in a.yaml:13:3\n  in b.yaml:13:3\n',
    );
    expect(runPlainFiles([b, a], 'render-valkey').stderr).toBe(first.stderr);
  });

  it('on stdin the object is named, not only a document number', () => {
    const objects = [image('img', { version: '9.0.0' }), renderConfigObject()];
    const out = runPlainFiles([yamlFile(STDIN_PATH, objects)], 'render-valkey');
    expect(out.stderr).toContain('  object: ValkeyImage img (document 1 on stdin)\n');
    expect(out.stderr).not.toContain('in <stdin>');
  });

  it("on stdin, kustomize's origin annotation names the file", () => {
    const broken = image('img', { version: '9.0.0' });
    const withOrigin = {
      ...broken,
      metadata: { ...broken.metadata, annotations: { 'config.kubernetes.io/origin': 'path: ../base/menu.yaml\n' } },
    };
    const out = runPlainFiles([yamlFile(STDIN_PATH, [withOrigin, renderConfigObject()])], 'render-valkey');
    expect(out.stderr).toContain('error: ValkeyImage img: spec.version: must be at least 9.0.1');
    expect(out.stderr).toContain('\n  in ../base/menu.yaml\n');
  });

  it('several render configs are listed in one order, whatever the input order', () => {
    const named = (name: string) => {
      const value = { ...renderConfigObject(), metadata: { name } };
      return { text: stringify(value), value };
    };
    const problems = runFunction([named('two'), named('one')], undefined, { validateOnly: true, dropLocalConfig: false }).problems;
    expect(problems.map((p) => p.message)).toContainEqual(expect.stringContaining('found 2 ValkeyRenderConfig objects (one, two)'));
  });
});

describe('counts read as sentences', () => {
  it.each([
    ['render-valkey', 'plain-files', 'rendered 1 cluster into 1 object'],
    ['validate-valkey', 'plain-files', 'valid: 1 image, 1 config, 1 role, 1 cluster'],
  ] as const)('%s (%s)', (tool, mode, text) => {
    expect(successText(tool, { images: 1, configs: 1, roles: 1, clusters: 1, objects: 1 }, mode)).toBe(text);
  });
  it('and the plural where there are several', () => {
    expect(successText('validate-valkey', { images: 2, configs: 0, roles: 3, clusters: 2, objects: 0 }, 'plain-files')).toBe(
      'valid: 2 images, 0 configs, 3 roles, 2 clusters',
    );
  });
});
