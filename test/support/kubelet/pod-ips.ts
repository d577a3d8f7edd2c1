// Pod IPs: one loopback address per pod, as a cluster gives each pod its own IP (all of
// 127.0.0.0/8 answers on Linux's lo). Each stand-in picks a random 127.a.b.0/24, so test files
// running at once (and other worktrees on the same machine) do not meet on the same addresses;
// an address is handed out only if the pod's ports can be bound on it right now.
import { randomInt } from 'node:crypto';
import { createServer } from 'node:net';

const canBind = (host: string, port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(false));
    srv.listen({ host, port, exclusive: true }, () => srv.close(() => resolve(true)));
  });

export class PodIps {
  private readonly prefix = `127.${String(randomInt(1, 255))}.${String(randomInt(0, 256))}`;
  private readonly used = new Set<string>();
  private next = 2;

  /** The node's address in this subnet (.1): hostIP of every pod. */
  get hostIp(): string {
    return `${this.prefix}.1`;
  }

  /** A fresh address (not the one just released: gossip about a gone pod must not reach a new one). */
  async allocate(ports: readonly number[]): Promise<string> {
    for (let tried = 0; tried < 253; tried++) {
      const ip = `${this.prefix}.${String(this.next)}`;
      this.next = this.next >= 254 ? 2 : this.next + 1;
      if (this.used.has(ip)) continue;
      const free = await Promise.all(ports.map((p) => canBind(ip, p)));
      if (free.every(Boolean)) {
        this.used.add(ip);
        return ip;
      }
    }
    throw new Error(`no free pod IP left in ${this.prefix}.0/24`);
  }

  release(ip: string): void {
    this.used.delete(ip);
  }
}
