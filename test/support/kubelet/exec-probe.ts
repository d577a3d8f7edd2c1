// The stand-in's exec readiness probe (KubeletOptions.readiness 'script'): the container's
// readinessProbe command, run as the kubelet runs it (the container's environment, a timeout,
// exit code 0 = ready, the output kept as the kubelet keeps it for the Unhealthy event), with
// BusyBox as `sh` and valkey-cli of the pod's build, as in the image (test/support/node/images.ts).
// What it bends, as container-command.ts bends the server's command line:
//   - a script path under a volume mount is read from the volume's host dir, and the absolute
//     paths in the script that lead into a mount (the TLS files) lead to the host dirs;
//   - `-h 127.0.0.1`, the pod's own loopback in its network namespace, becomes the pod's
//     loopback address here (every stand-in pod shares the host's network namespace).
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { run } from '../exec.js';
import { hostPathOf, type Mount } from './container-command.js';

export const BUSYBOX = '/bin/busybox';

export interface ExecProbe {
  command: readonly string[];
  timeoutSeconds?: number;
}

export interface ExecProbeResult {
  ok: boolean;
  output: string;
}

/** The script a `sh <script> <args>` probe runs, with its paths and loopback address bent as above. */
export function bendProbeScript(text: string, mounts: readonly Mount[], podIp: string): string {
  return text
    .replace(/(^|[\s'"=])(\/[A-Za-z0-9._/-]+)/g, (all, lead: string, path: string) => {
      const host = hostPathOf(mounts, path);
      return host === undefined ? all : `${lead}${host}`;
    })
    .replaceAll('-h 127.0.0.1 ', `-h ${podIp} `);
}

export async function runExecProbe(
  probe: ExecProbe,
  o: { mounts: readonly Mount[]; env: ReadonlyMap<string, string>; binDir: string; podIp: string; scratchDir: string },
): Promise<ExecProbeResult> {
  const [program, script, ...args] = probe.command;
  if ((program !== 'sh' && program !== '/bin/sh') || script === undefined)
    return { ok: false, output: `the stand-in runs only 'sh <script>' probes, not ${JSON.stringify(probe.command)}` };
  const hostScript = hostPathOf(o.mounts, script) ?? script;
  let text: string;
  try {
    text = await readFile(hostScript, 'utf8');
  } catch (e) {
    return { ok: false, output: `sh: can't open '${script}': ${(e as Error).message}` };
  }
  await mkdir(o.scratchDir, { recursive: true });
  const bent = join(o.scratchDir, 'probe-script.sh');
  await writeFile(bent, bendProbeScript(text, o.mounts, o.podIp));
  const env = { ...Object.fromEntries(o.env), PATH: `${o.binDir}:/usr/bin:/bin` };
  const timeoutMs = (probe.timeoutSeconds ?? 1) * 1_000;
  try {
    const r = await run(BUSYBOX, ['sh', bent, ...args], { env, timeoutMs });
    return { ok: r.code === 0, output: (r.stdout + r.stderr).trim() };
  } catch (e) {
    return { ok: false, output: `command timed out: ${(e as Error).message.split('\n')[0] ?? ''}` };
  }
}
