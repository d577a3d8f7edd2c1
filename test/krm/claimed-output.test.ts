// Everything in a package that claims to be valkey-krm's output but is not exactly what this
// render produces is a finding: a StatefulSet named like a shard added by a pull request, and a
// hand-edited second copy of a rendered object in another file. render, validate-valkey and plan
// each report it (before issue 32 they passed it, and plan called the change "unchanged").
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LABELS } from '../../src/api/index.js';
import { runPlanCommand } from '../../src/krm/plan-command.js';
import { runFunction, type InputItem } from '../../src/krm/run-function.js';
import { cluster, guideMenu, renderConfigObject } from '../support/objects.js';

const clone = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const item = (value: unknown, path: string, index = 0): InputItem => ({
  text: `${JSON.stringify(value)}\n`,
  value,
  file: { path, index },
});
const CONFIG = renderConfigObject({ outputDir: 'valkey' });
const inputs = () => [...guideMenu(), cluster('cache', { shards: 3 })];

/** The package as committed: the inputs and their rendered output in valkey/team-a/cache.yaml. */
function committed(): InputItem[] {
  const out = runFunction(
    inputs().map((v, i) => item(v, 'package.yaml', i)),
    CONFIG,
    { validateOnly: false, dropLocalConfig: false },
  );
  if (!out.ok) throw new Error(JSON.stringify(out.problems));
  return [
    ...inputs().map((v, i) => item(v, 'package.yaml', i)),
    ...out.generated.map((g, i) => item(clone(g.object), 'valkey/team-a/cache.yaml', i)),
  ];
}

/** A StatefulSet like shard 0's, as `<cluster>-7`, with the cluster's labels but not ours. */
function shardSeven(): Record<string, unknown> {
  const s0 = committed().find(
    (i) =>
      (i.value as { kind: string; metadata: { name: string } }).metadata.name === 'cache-0' &&
      (i.value as { kind: string }).kind === 'StatefulSet',
  );
  const s = clone(s0?.value) as { metadata: Record<string, unknown>; spec: { template: { metadata: { labels: Record<string, string> } } } };
  s.metadata = { name: 'cache-7', namespace: 'team-a', labels: { [LABELS.cluster]: 'cache', [LABELS.shard]: '7' } };
  s.spec.template.metadata.labels = { ...s.spec.template.metadata.labels, [LABELS.shard]: '7' };
  return s as Record<string, unknown>;
}

/** A hand-edited copy of the rendered StatefulSet cache-0 with a foreign image. */
function foreignCopy(): Record<string, unknown> {
  const s0 = committed().find(
    (i) =>
      (i.value as { kind: string; metadata: { name: string } }).metadata.name === 'cache-0' &&
      (i.value as { kind: string }).kind === 'StatefulSet',
  );
  const s = clone(s0?.value) as { spec: { template: { spec: { containers: { image: string }[] } } } };
  (s.spec.template.spec.containers[0] as { image: string }).image = 'registry.example/miner:latest';
  return s as unknown as Record<string, unknown>;
}

const errors = (out: ReturnType<typeof runFunction>) => out.problems.filter((p) => p.severity === 'error').map((p) => p.message);

describe('render and validate-valkey', () => {
  it('the committed package alone is clean (the check is fair)', () => {
    for (const validateOnly of [true, false])
      expect(errors(runFunction(committed(), CONFIG, { validateOnly, dropLocalConfig: false }))).toEqual([]);
  });

  it.each([true, false])(
    'a StatefulSet named like a shard, with the cluster labels, added in another file (validateOnly %s)',
    (validateOnly) => {
      const out = runFunction([...committed(), item(shardSeven(), 'extra/shard.yaml')], CONFIG, { validateOnly, dropLocalConfig: false });
      expect(out.ok).toBe(false);
      expect(errors(out)).toContainEqual(
        expect.stringMatching(
          /^StatefulSet team-a\/cache-7 \(extra\/shard\.yaml #0\): claims to be part of ValkeyCluster team-a\/cache by .*, but valkey-krm did not render it/,
        ),
      );
    },
  );

  it.each([true, false])('a hand-edited second copy of a rendered StatefulSet in another file (validateOnly %s)', (validateOnly) => {
    const out = runFunction([item(foreignCopy(), 'a-copy.yaml'), ...committed()], CONFIG, { validateOnly, dropLocalConfig: false });
    expect(out.ok).toBe(false);
    expect(errors(out)).toContainEqual(
      expect.stringMatching(/^StatefulSet team-a\/cache-0: defined 2 times \(a-copy\.yaml #0, valkey\/team-a\/cache\.yaml #\d+\)/),
    );
  });
});

describe('plan', () => {
  const dir = mkdtempSync(join(tmpdir(), 'valkey-krm-claims-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const write = (side: string, extra: Record<string, unknown>[]) => {
    const docs = [CONFIG, ...committed().map((i) => i.value), ...extra];
    writeFileSync(join(dir, `${side}.yaml`), docs.map((d) => `---\n${JSON.stringify(d)}\n`).join(''));
  };

  it('the base against itself is unchanged (the check is fair)', () => {
    write('base', []);
    write('same', []);
    expect(runPlanCommand(['--base', 'base.yaml', '--fail-on', 'any', 'same.yaml'], { cwd: dir }).exitCode).toBe(0);
  });

  it.each([
    [
      'a StatefulSet named like a shard',
      () => [shardSeven()],
      /StatefulSet team-a\/cache-7 .*claims to be part of ValkeyCluster team-a\/cache/,
    ],
    ['a second, hand-edited copy of a rendered StatefulSet', () => [foreignCopy()], /StatefulSet team-a\/cache-0: defined 2 times/],
  ])('%s in the change is a finding, and --fail-on any does not exit 0', (_what, extra, message) => {
    write('base', []);
    write('change', extra());
    const out = runPlanCommand(['--base', 'base.yaml', '--fail-on', 'any', 'change.yaml'], { cwd: dir });
    expect(out.exitCode).not.toBe(0);
    expect(`${out.stdout}${out.stderr}`).toMatch(message);
    expect(out.stdout).not.toMatch(/^valkey-krm plan: .*unchanged/m);
  });
});
