// A small cluster-aware client for day-2 tests (DESIGN §8: "a client writes and reads throughout
// and counts what was lost"): it routes each key by its slot (CRC16, as Valkey does), follows
// MOVED, refreshes its slot map from CLUSTER SLOTS when a node fails, writes one key after another
// for the whole run, and at the end reads every acknowledged write back. Written here rather than
// taken from a library: it must report per-shard pauses and acknowledged writes exactly.
import { isIP } from 'node:net';
import { connectResp, type RespConnection, type TlsOptions } from '../../../src/controller/valkey/resp-connection.js';
import { shardSlotRange } from '../../../src/api/contract/slots.js';

function crc16(s: string): number {
  let crc = 0;
  for (const byte of Buffer.from(s)) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** GETs in flight while the writes are read back. */
const READ_BACK_LANES = 16;

export const keySlot = (key: string): number => crc16(key) % 16384;

export interface WriterOptions {
  /** Pod IPs to discover the cluster from (port 6379); read again on every refresh. */
  seeds: () => Promise<string[]>;
  /** For CLUSTER SLOTS. */
  admin: { username: string; password: string };
  /** For SET and GET. */
  app: { username: string; password: string };
  shards: number;
  prefix: string;
  /**
   * A TLS cluster (it announces hostnames): the CA, client certificate and key, and the name the
   * seeds' certificate is checked against (the Service's). Announced hostnames are dialled at the
   * IP CLUSTER SLOTS gives with them, and checked against the hostname: no DNS is needed.
   */
  tls?: Omit<TlsOptions, 'servername'> & { seedServername: string };
  /**
   * Dial each node at the port CLUSTER SLOTS and MOVED give (seeds are then `host:port`), for
   * worlds whose servers share 127.0.0.1; default: every node on 6379.
   */
  announcedPorts?: boolean;
}

export interface WriterReport {
  acknowledged: number;
  failedAttempts: number;
  lost: number;
  /** Longest time, per shard, between a refused write and the next accepted one (ms). */
  longestPauseMs: number[];
  /** Acknowledged writes not read back, per shard. */
  lostByShard: number[];
  /** Every pause of a second or more: the shard, when it began (epoch ms) and how long (ms); one still open at the end included. */
  pauses: { shard: number; from: number; ms: number }[];
}

export class ClusterWriter {
  private readonly slots = new Map<number, string>();
  /** Announced hostname -> the node's IP, from CLUSTER SLOTS' metadata (TLS clusters). */
  private readonly addresses = new Map<string, string>();
  private readonly conns = new Map<string, Promise<RespConnection>>();
  private readonly acked = new Map<string, string>();
  private readonly pauseStart: (number | undefined)[];
  private readonly longest: number[];
  private readonly pauses: WriterReport['pauses'] = [];
  private failed = 0;
  private running = true;
  private loop: Promise<void> = Promise.resolve();

  constructor(private readonly o: WriterOptions) {
    this.pauseStart = new Array<number | undefined>(o.shards).fill(undefined);
    this.longest = new Array<number>(o.shards).fill(0);
  }

  start(): void {
    this.loop = this.run();
  }

  get acknowledged(): number {
    return this.acked.size;
  }

  private shardOf(slot: number): number {
    for (let s = 0; s < this.o.shards; s++) {
      const [a, b] = shardSlotRange(s, this.o.shards);
      if (slot >= a && slot <= b) return s;
    }
    return 0;
  }

  /** `host` or, with announcedPorts, `host:port`: where to dial. */
  private dialOf(target: string): { host: string; port: number } {
    if (!this.o.announcedPorts) return { host: target, port: 6379 };
    const at = target.lastIndexOf(':');
    return { host: target.slice(0, at), port: Number(target.slice(at + 1)) };
  }

  private async refresh(): Promise<void> {
    for (const ip of await this.o.seeds()) {
      let c: RespConnection | undefined;
      try {
        c = await connectResp({ ...this.dialOf(ip), ...this.tlsFor(ip), connectTimeoutMs: 500, commandTimeoutMs: 1000 });
        await c.call(['AUTH', this.o.admin.username, this.o.admin.password]);
        const reply = (await c.call(['CLUSTER', 'SLOTS'])) as [number, number, [string, number, string?, unknown[]?]][];
        if (!Array.isArray(reply) || reply.length === 0) continue;
        this.slots.clear();
        for (const [a, b, [host, port, , meta]] of reply) {
          for (let s = a; s <= b; s++) this.slots.set(s, this.o.announcedPorts ? `${host}:${port}` : host);
          // RESP2 metadata: a flat list of names and values, e.g. ["ip", "10.123.0.7"].
          const at = Array.isArray(meta) ? meta.indexOf('ip') : -1;
          if (at >= 0 && typeof meta?.[at + 1] === 'string') this.addresses.set(host, meta[at + 1] as string);
        }
        return;
      } catch {
        // try the next seed
      } finally {
        c?.close();
      }
    }
  }

  /** The TLS options for dialling `host` (an IP: a seed, checked against the Service's name). */
  private tlsFor(host: string): { tls?: TlsOptions } {
    if (!this.o.tls) return {};
    const { seedServername, ...rest } = this.o.tls;
    return { tls: { ...rest, servername: isIP(host) ? seedServername : host } };
  }

  private conn(host: string): Promise<RespConnection> {
    let p = this.conns.get(host);
    if (!p) {
      p = (async () => {
        const address = this.addresses.get(host) ?? host;
        const c = await connectResp({ ...this.dialOf(address), ...this.tlsFor(host), connectTimeoutMs: 500, commandTimeoutMs: 1000 });
        await c.call(['AUTH', this.o.app.username, this.o.app.password]);
        return c;
      })();
      p.catch(() => this.conns.delete(host));
      this.conns.set(host, p);
    }
    return p;
  }

  /** One command routed by the key's slot, following one MOVED; throws when refused. */
  private async call(key: string, args: string[]): Promise<unknown> {
    const slot = keySlot(key);
    let host = this.slots.get(slot);
    for (let attempt = 0; attempt < 2; attempt++) {
      if (!host) throw new Error(`no owner known for slot ${slot}`);
      try {
        return await (await this.conn(host)).call(args);
      } catch (e) {
        const moved = e instanceof Error ? (this.o.announcedPorts ? /MOVED \d+ (\S+)/ : /MOVED \d+ ([^\s:]+):/).exec(e.message) : null;
        if (moved?.[1]) {
          host = moved[1];
          // A hostname not seen yet (a new node): CLUSTER SLOTS gives its IP.
          if (!isIP(host) && !this.addresses.has(host)) await this.refresh();
          this.slots.set(slot, host);
          continue;
        }
        this.conns.get(host)?.then(
          (c) => c.close(),
          () => undefined,
        );
        this.conns.delete(host);
        throw e;
      }
    }
    throw new Error(`slot ${slot}: moved twice`);
  }

  private async run(): Promise<void> {
    await this.refresh();
    let i = 0;
    let lastRefresh = 0;
    while (this.running) {
      const key = `${this.o.prefix}:${i}`;
      const value = `v${i}`;
      const shard = this.shardOf(keySlot(key));
      const t = Date.now();
      try {
        const reply = await this.call(key, ['SET', key, value]);
        if (reply === 'OK') {
          this.acked.set(key, value);
          const since = this.pauseStart[shard];
          if (since !== undefined) {
            this.longest[shard] = Math.max(this.longest[shard] ?? 0, t - since);
            if (t - since >= 1000) this.pauses.push({ shard, from: since, ms: t - since });
          }
          this.pauseStart[shard] = undefined;
        }
      } catch {
        this.failed++;
        this.pauseStart[shard] ??= t;
        if (Date.now() - lastRefresh > 100) {
          lastRefresh = Date.now();
          await this.refresh();
        }
        await new Promise((r) => setTimeout(r, 20));
      }
      i++;
      await new Promise((r) => setTimeout(r, 2));
    }
  }

  /** Stops writing, reads every acknowledged key back, and reports. */
  async stop(): Promise<WriterReport> {
    this.running = false;
    await this.loop;
    await this.refresh();
    let lost = 0;
    const lostByShard = new Array<number>(this.o.shards).fill(0);
    const entries = [...this.acked];
    let next = 0;
    // Several GETs in flight (pipelined on each node's connection): one at a time, reading back a
    // real-node case's 10-20 thousand keys took up to two minutes on a loaded machine.
    const lane = async (): Promise<void> => {
      for (let entry = entries[next++]; entry !== undefined; entry = entries[next++]) {
        const [key, value] = entry;
        let got: unknown;
        for (let attempt = 0; attempt < 5; attempt++) {
          try {
            got = await this.call(key, ['GET', key]);
            break;
          } catch {
            await this.refresh();
          }
        }
        if (got !== value) {
          lost++;
          const shard = this.shardOf(keySlot(key));
          lostByShard[shard] = (lostByShard[shard] ?? 0) + 1;
        }
      }
    };
    await Promise.all(Array.from({ length: READ_BACK_LANES }, lane));
    for (const p of this.conns.values())
      p.then(
        (c) => c.close(),
        () => undefined,
      );
    const now = Date.now();
    const longest = this.longest.map((l, s) => Math.max(l, this.pauseStart[s] !== undefined ? now - (this.pauseStart[s] as number) : 0));
    const open = this.pauseStart.flatMap((from, shard) => (from === undefined ? [] : [{ shard, from, ms: now - from }]));
    return {
      acknowledged: this.acked.size,
      failedAttempts: this.failed,
      lost,
      longestPauseMs: longest,
      lostByShard,
      pauses: [...this.pauses, ...open],
    };
  }
}
