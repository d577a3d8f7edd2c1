// The stand-in has no containers: a pod's process runs on this host, so the paths in its command
// line and config file (/data, /etc/valkey/conf/...) must lead to the pod's own volume dirs, and
// its "network namespace" is one loopback address. This is the only place that bends the pod spec;
// everything it changes is listed here:
//   - an argument naming a path under a volume mount is rewritten to the volume's host dir;
//   - the config file (Valkey's first argument) is read from a translated copy outside the
//     volumes, whose path values (dir, aclfile, tls-cert-file, ...) lead to the host dirs: Valkey
//     acts on some lines as it reads them (`dir` changes directory at once), so overriding them on
//     the command line would come too late. The projected file itself stays byte for byte what
//     the ConfigMap holds; a restart translates it afresh;
//   - `--bind <pod IP>` replaces the config's bind: each pod listens on its own address only.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';

export interface Mount {
  mountPath: string;
  hostDir: string;
}

export interface PingTarget {
  host: string;
  port: number;
  /** Present when the port speaks TLS: the client certificate and CA, as the pod's probe uses them. */
  tls?: { cert: string; key: string; ca: string };
}

export interface ContainerCommand {
  binary: string;
  args: string[];
  ping: PingTarget;
}

export function hostPathOf(mounts: readonly Mount[], path: string): string | undefined {
  let best: { prefix: string; hostDir: string } | undefined;
  for (const m of mounts) {
    const prefix = m.mountPath.replace(/\/+$/, '');
    if ((path === prefix || path.startsWith(`${prefix}/`)) && (best === undefined || prefix.length > best.prefix.length))
      best = { prefix, hostDir: m.hostDir };
  }
  return best === undefined ? undefined : best.hostDir + path.slice(best.prefix.length);
}

/** `name value` lines of a Valkey config file (single-valued ones; later lines win). */
export function configDirectives(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split('\n')) {
    const m = /^\s*([a-z][a-z0-9-]*)\s+(\S+)\s*$/.exec(line);
    if (m?.[1] !== undefined && m[2] !== undefined) out.set(m[1], m[2]);
  }
  return out;
}

/**
 * The host command line for a container whose image runs `command[0]` from `binDir`: expanded
 * args in, paths translated, the config file copied with host paths into `scratchDir`.
 */
export async function containerCommand(opts: {
  command: readonly string[];
  args: readonly string[];
  binDir: string;
  mounts: readonly Mount[];
  scratchDir: string;
  podIp: string;
  port: number;
}): Promise<ContainerCommand> {
  const [program, ...commandArgs] = opts.command;
  if (program === undefined) throw new Error('container has no command (the stand-in knows no image entrypoints)');
  const binary = join(opts.binDir, basename(program));
  const hostPath = (p: string): string => (p.startsWith('/') ? (hostPathOf(opts.mounts, p) ?? p) : p);
  const args = [...commandArgs, ...opts.args].map(hostPath);

  const configPath = args[0] !== undefined && !args[0].startsWith('-') ? args[0] : undefined;
  const configText = configPath === undefined ? '' : await readFile(configPath, 'utf8').catch(() => '');
  const directives = configDirectives(configText);
  if (configPath !== undefined && configText !== '') {
    const translated = configText
      .split('\n')
      .map((line) => {
        const m = /^(\s*[a-z][a-z0-9-]*\s+)(\/\S*)(\s*)$/.exec(line);
        return m?.[1] === undefined || m[2] === undefined ? line : `${m[1]}${hostPath(m[2])}${m[3] ?? ''}`;
      })
      .join('\n');
    await mkdir(opts.scratchDir, { recursive: true });
    args[0] = join(opts.scratchDir, basename(configPath));
    await writeFile(args[0], translated);
  }
  args.push('--bind', opts.podIp);

  const value = (name: string): string | undefined => {
    const v = directives.get(name);
    return v === undefined ? undefined : hostPath(v);
  };
  const tlsPort = Number(directives.get('tls-port') ?? '0');
  const cert = value('tls-cert-file');
  const key = value('tls-key-file');
  const ca = value('tls-ca-cert-file');
  const tls = tlsPort !== 0 && tlsPort === opts.port && cert && key && ca ? { cert, key, ca } : undefined;
  return { binary, args, ping: { host: opts.podIp, port: opts.port, ...(tls ? { tls } : {}) } };
}
