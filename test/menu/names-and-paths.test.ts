import { describe, expect, it } from 'vitest';
import { runFunction, type InputItem } from '../../src/krm/run-function.js';
import { outputPath } from '../../src/krm/output-path.js';
import { validateRenderConfig } from '../../src/menu/render-config.js';
import { cluster, guideMenu, renderConfigObject } from '../support/objects.js';

const item = (value: unknown): InputItem => ({ text: `${JSON.stringify(value)}\n`, value });
const run = (extra: unknown[]) =>
  runFunction([...guideMenu(), ...extra].map(item), renderConfigObject(), { validateOnly: false, dropLocalConfig: false });

describe('every name and namespace that becomes a path or a Kubernetes name is validated as the API server would', () => {
  it.each(['../x', '..', 'a/b', 'Team', 'team_a', '-team', 'team-', 'a'.repeat(64), 'te am', 'a\nb', '.'])(
    'a ValkeyCluster in namespace %j is an error and renders nothing',
    (namespace) => {
      const r = run([cluster('cache', {}, namespace)]);
      expect(r.ok).toBe(false);
      expect(r.generated).toEqual([]);
      expect(r.problems.filter((p) => p.severity === 'error').map((p) => p.field)).toEqual(['metadata.namespace']);
    },
  );

  it.each(['a', 'team-a', `a${'b'.repeat(62)}`, '0team'])('namespace %j is fine', (namespace) => {
    const r = run([cluster('cache', {}, namespace)]);
    expect(r.ok).toBe(true);
    expect(r.generated[0]?.path).toBe(`rendered/${namespace}/cache.yaml`);
  });

  it.each(['a//b', './rendered', 'rendered/.', '.hidden', 'a b', 'a\nb', 'a\\b', '-x', 'a/../b', '/abs'])(
    'outputDir %j is refused',
    (outputDir) => {
      const r = validateRenderConfig(renderConfigObject({ outputDir }));
      expect(r.problems.map((p) => p.field)).toContain('spec.outputDir');
    },
  );

  it.each(['rendered', 'deploy/valkey', 'out_1/v.2'])('outputDir %j is fine', (outputDir) => {
    expect(validateRenderConfig(renderConfigObject({ outputDir })).problems).toEqual([]);
  });

  it('the output path is checked again where it is composed', () => {
    expect(outputPath('rendered', 'team-a', 'cache')).toBe('rendered/team-a/cache.yaml');
    expect(outputPath('rendered', '../x', 'cache')).toBeUndefined();
    expect(outputPath('rendered', 'team-a', '../cache')).toBeUndefined();
    expect(outputPath('../rendered', 'team-a', 'cache')).toBeUndefined();
    expect(outputPath('a//b', 'team-a', 'cache')).toBeUndefined();
  });
});
