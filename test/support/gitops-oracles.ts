// The GitOps readers (scripts/gitops-oracles): Argo CD's health-script sandbox (gopher-lua),
// Flux's status reader (cli-utils kstatus) and kubeconform. Built into the tools cache by
// scripts/build-gitops-oracles.sh on first use.
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { REPO_ROOT, repoPath } from './paths.js';

let built: { oracles: string; kubeconform: string } | undefined;

function tools(): { oracles: string; kubeconform: string } {
  if (built === undefined) {
    const env = execFileSync('bash', ['scripts/build-gitops-oracles.sh', '--print-env'], {
      cwd: REPO_ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const oracles = /^GITOPS_ORACLES=(.*)$/m.exec(env)?.[1];
    const kubeconform = /^KUBECONFORM=(.*)$/m.exec(env)?.[1];
    if (!oracles || !kubeconform) throw new Error(`build-gitops-oracles.sh printed no paths: ${env}`);
    built = { oracles, kubeconform };
  }
  return built;
}

export interface Verdict {
  status: string;
  message: string;
}

const ask = (args: string[], obj: unknown): Verdict =>
  JSON.parse(execFileSync(tools().oracles, args, { input: JSON.stringify(obj), encoding: 'utf8' })) as Verdict;

/** The recipe's ValkeyCluster health check (integrations/argocd/argocd-cm-patch.yaml), written to `dir`: its path. */
export function argoHealthScript(dir: string): string {
  const patch = parse(readFileSync(repoPath('integrations/argocd/argocd-cm-patch.yaml'), 'utf8')) as { data: Record<string, string> };
  const path = join(dir, 'health.lua');
  writeFileSync(path, patch.data['resource.customizations.health.valkey.gomomento.com_ValkeyCluster'] as string);
  return path;
}

/** What Argo CD's health check `script` says of `obj`. */
export const argoHealth = (scriptPath: string, obj: unknown): Verdict => ask(['argocd-health', scriptPath], obj);

/** What kstatus (Flux's health checks) says of `obj`. */
export const kstatus = (obj: unknown): Verdict => ask(['kstatus'], obj);

/** kubeconform with the given arguments, from the repository root. */
export function kubeconform(args: readonly string[]): { code: number; out: string } {
  const r = spawnSync(tools().kubeconform, args, { cwd: REPO_ROOT, encoding: 'utf8' });
  return { code: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}
