// Why render-valkey does not use the kpt functions SDK (`kpt-functions` on npm), kept checked: the
// SDK's run() parses and re-dumps every item with js-yaml 3, so even a function that changes
// nothing rewrites the files a package's owners wrote. render-valkey must hand them back byte for
// byte. If the SDK ever stops changing them, the first test fails and the README's reason is stale.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { documentTexts, HEADER, resourceList } from '../support/yaml-docs.js';
import { run } from '../support/exec.js';
import { packageFiles } from '../support/files.js';
import { repoPath } from '../support/paths.js';

/**
 * A file the package's owners wrote, which neither function has any business changing: comments,
 * kpt's quoted annotations as kpt sends them, a string that YAML 1.2 would read as a number if it
 * lost its quotes, and keys in the order they were written (numbers last).
 */
const USER_FILE = `# Owned by the payments team: the platform's functions must leave it alone.
apiVersion: v1
kind: ConfigMap
metadata:
  name: payments-settings # read by the payments API at start-up
  namespace: payments
  annotations:
    config.kubernetes.io/index: '0'
    config.kubernetes.io/path: 'payments-settings.yaml'
    internal.config.kubernetes.io/index: '0'
    internal.config.kubernetes.io/path: 'payments-settings.yaml'
data:
  uploadMode: "0o644" # a string: the app parses it as an octal file mode
  featureFlag: "on"
  "200": ok
  "10": retries
`;

/** The user's file as one item of the ResourceList, exactly as it is sent. */
const USER_ITEM = resourceList([USER_FILE]).slice(HEADER.length);

/** The tshirt-sizes example package (menu, clusters, render config) plus the user's file. */
const INPUT = resourceList([
  ...packageFiles(repoPath('kptfile-examples/tshirt-sizes')).flatMap(({ text }) => documentTexts(text)),
  USER_FILE,
]);

interface Item {
  kind: string;
  metadata: { name: string };
  data?: Record<string, unknown>;
}

/** The user's ConfigMap as a YAML 1.2 reader (the `yaml` package, like kpt's Go side) sees it. */
function userConfigMap(resourceListText: string): Item {
  const { items } = parse(resourceListText) as { items: Item[] };
  const found = items.find((i) => i.kind === 'ConfigMap' && i.metadata.name === 'payments-settings');
  if (!found) throw new Error('the user ConfigMap is not in the output');
  return found;
}

const sdkIdentity = () => run(process.execPath, [repoPath('test/integration/kpt-sdk-identity.cjs')], { input: INPUT, cwd: repoPath() });
const renderValkey = () => run(process.execPath, [repoPath('dist/render-valkey.cjs')], { input: INPUT, cwd: repoPath() });

describe('the kpt functions SDK against render-valkey, on the same package', () => {
  it('the input holds what the user wrote', () => {
    expect(INPUT).toContain(USER_ITEM);
    expect(userConfigMap(INPUT).data).toEqual({ uploadMode: '0o644', featureFlag: 'on', '200': 'ok', '10': 'retries' });
  });

  it("the SDK's identity function (kpt-functions 0.16.1) rewrites the user's file and changes a value", async () => {
    const { version } = JSON.parse(readFileSync(repoPath('node_modules/kpt-functions/package.json'), 'utf8')) as { version: string };
    expect(version).toBe('0.16.1');
    const r = await sdkIdentity();
    expect(r.code, r.stderr).toBe(0);
    // The bytes: comments dropped, quotes changed, keys reordered.
    expect(r.stdout).not.toContain(USER_ITEM);
    expect(r.stdout).not.toContain('# Owned by the payments team');
    expect(r.stdout).not.toContain('# read by the payments API');
    expect(r.stdout).toContain("featureFlag: 'on'");
    expect(Object.keys(userConfigMap(r.stdout).data ?? {})).toEqual(['10', '200', 'uploadMode', 'featureFlag']);
    // A value: js-yaml 3 does not know YAML 1.2's 0o octal form, so it writes the string "0o644"
    // without quotes, and YAML 1.2 readers (the `yaml` package here, go-yaml v3 in kpt) see 420.
    expect(r.stdout).toMatch(/^ {4}uploadMode: 0o644$/m);
    expect(userConfigMap(r.stdout).data?.uploadMode).toBe(420);
  });

  it("render-valkey hands the user's file back byte for byte, and renders the package", async () => {
    const r = await renderValkey();
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(USER_ITEM);
    expect(userConfigMap(r.stdout).data).toEqual(userConfigMap(INPUT).data);
    const { items } = parse(r.stdout) as { items: Item[] };
    expect(items.filter((i) => i.kind === 'StatefulSet').length).toBeGreaterThan(0);
  });
});
