// Debian's redis-server (/usr/bin/redis-server, DESIGN.md §8): the same protocol as Valkey, but
// no `valkey_version` in INFO. Tests use it only where the point is "not Valkey at all" (the
// version gate's refusal); everything that needs a real Valkey uses startValkey (valkey.ts).
//
//   const r = await startRedis({ args: ["--requirepass", "s3cret"] });
//   ... connect to r.host:r.port ...
//   await r.stop();
import { startServer, type RunningServer, type StartServerOptions } from './servers.js';

export const REDIS_SERVER = process.env.REDIS_SERVER ?? '/usr/bin/redis-server';

export function startRedis(opts: StartServerOptions = {}): Promise<RunningServer> {
  return startServer(
    { name: 'redis-server', binary: REDIS_SERVER, installHint: 'apt-get install -y redis-server (or set REDIS_SERVER)' },
    opts,
  );
}
