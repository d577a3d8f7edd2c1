import { connect as netConnect, type Socket } from 'node:net';
import { X509Certificate } from 'node:crypto';
import { checkServerIdentity, connect as tlsConnect, type TLSSocket } from 'node:tls';
import { inert } from '../runtime/inert.js';
import { RespError, RespParser, encodeCommand, type RespValue } from './resp.js';

export interface TlsOptions {
  /** PEM CA the server certificate must chain to. */
  ca: string;
  /** Client certificate and key, for servers with `tls-auth-clients yes`. */
  cert?: string;
  key?: string;
  /** Name to verify the certificate against (and send as SNI); pods are dialled by IP. */
  servername: string;
}

export interface ConnectOptions {
  host: string;
  port: number;
  tls?: TlsOptions;
  /** Bound on connecting (and the TLS handshake). */
  connectTimeoutMs: number;
  /** Bound on each command's reply. */
  commandTimeoutMs: number;
}

/** The node could not be talked to: refused, timed out, closed, TLS failure or garbage. */
export class NodeUnavailableError extends Error {
  /** The socket error's code (e.g. CERT_HAS_EXPIRED), when there was one. */
  constructor(
    message: string,
    readonly code?: string,
  ) {
    // Often quotes what the node sent: inert and bounded here, where node text becomes our words.
    super(inert(message, 2048));
  }
}

/** The node answered with an error reply, e.g. `WRONGPASS` or `ERR Unknown node`. */
export class CommandError extends Error {
  constructor(
    readonly command: string,
    readonly reply: RespError,
  ) {
    // The node's own words, inert and bounded (runtime/inert.ts); `reply` keeps them as sent.
    super(`${command}: ${inert(reply.message, 512)}`);
  }
  get code(): string {
    return this.reply.code;
  }
}

export interface RespConnection {
  /** One command; resolves with the reply, rejects with CommandError or NodeUnavailableError. */
  call(args: readonly string[]): Promise<RespValue>;
  /** The SHA-256 fingerprint of the certificate the server presented (TLS only), as `AA:BB:...`. */
  peerFingerprint(): string | undefined;
  /** The node's certificate has expired (let through so the node can be told to reload; see connectResp). */
  peerCertificateExpired(): boolean;
  close(): void;
}

interface Pending {
  name: string;
  resolve: (v: RespValue) => void;
  reject: (e: Error) => void;
}

/** Commands are logged and reported by name only, never with their arguments (AUTH has a password). */
const commandName = (args: readonly string[]): string => (args[0] === 'AUTH' ? 'AUTH' : args.slice(0, 2).join(' '));

/**
 * A connection to one node. Over TLS the node's certificate must chain to the CA and carry the
 * pod's name. One exception, so a node can be repaired: a certificate that only has expired. A
 * node reads its certificate files when told to reload, and those lag the Secret (the kubelet
 * projects them later), so a node can be made to load an expired certificate that the Secret no
 * longer holds; a controller that refused it could never tell the node to reload again. Such a
 * handshake is tried a second time with the chain and the name checked here, and only the expiry
 * let through (`peerCertificateExpired()` says so).
 */
export async function connectResp(opts: ConnectOptions): Promise<RespConnection> {
  try {
    return await connectOnce(opts, false);
  } catch (e) {
    if (opts.tls && e instanceof NodeUnavailableError && e.code === 'CERT_HAS_EXPIRED') return connectOnce(opts, true);
    throw e;
  }
}

/** Why a peer certificate that has expired is not otherwise the node's: its name and its issuer. */
function expiredPeerProblem(socket: TLSSocket, tls: TlsOptions): string | undefined {
  if (socket.authorized) return undefined;
  if (socket.authorizationError?.toString() !== 'CERT_HAS_EXPIRED') return `certificate not trusted (${String(socket.authorizationError)})`;
  const peer = socket.getPeerCertificate();
  const identity = checkServerIdentity(tls.servername, peer);
  if (identity) return identity.message;
  const leaf = new X509Certificate(peer.raw);
  const issuers = (tls.ca.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? []).map((p) => new X509Certificate(p));
  if (!issuers.some((ca) => leaf.checkIssued(ca) && leaf.verify(ca.publicKey)))
    return 'certificate has expired and is not issued by the CA';
  return undefined;
}

function connectOnce(opts: ConnectOptions, tolerateExpired: boolean): Promise<RespConnection> {
  const where = `${opts.host}:${opts.port}`;
  return new Promise((resolve, reject) => {
    const socket: Socket = opts.tls
      ? tlsConnect({
          host: opts.host,
          port: opts.port,
          ca: opts.tls.ca,
          ...(opts.tls.cert !== undefined && opts.tls.key !== undefined ? { cert: opts.tls.cert, key: opts.tls.key } : {}),
          servername: opts.tls.servername,
          ...(tolerateExpired ? { rejectUnauthorized: false } : {}),
        })
      : netConnect({ host: opts.host, port: opts.port });
    const readyEvent = opts.tls ? 'secureConnect' : 'connect';
    const parser = new RespParser();
    const pending: Pending[] = [];
    let failure: NodeUnavailableError | undefined;

    const fail = (err: NodeUnavailableError): void => {
      if (failure) return;
      failure = err;
      socket.destroy();
      for (const p of pending.splice(0)) p.reject(err);
    };

    const connectTimer = setTimeout(() => {
      const err = new NodeUnavailableError(`${where}: no connection within ${opts.connectTimeoutMs} ms`);
      fail(err);
      reject(err);
    }, opts.connectTimeoutMs);

    socket.on('error', (e: NodeJS.ErrnoException) => {
      clearTimeout(connectTimer);
      const err = new NodeUnavailableError(`${where}: ${e.message}`, e.code);
      fail(err);
      reject(err);
    });
    socket.once('close', () => fail(new NodeUnavailableError(`${where}: connection closed`)));
    socket.on('data', (chunk: Buffer) => {
      try {
        parser.push(chunk);
        for (let reply = parser.next(); reply !== undefined; reply = parser.next()) {
          const p = pending.shift();
          if (!p) throw new Error('a reply nobody asked for');
          if (reply instanceof RespError) p.reject(new CommandError(p.name, reply));
          else p.resolve(reply);
        }
      } catch (e) {
        fail(new NodeUnavailableError(`${where}: protocol error: ${e instanceof Error ? e.message : String(e)}`));
      }
    });
    socket.once(readyEvent, () => {
      clearTimeout(connectTimer);
      const problem = tolerateExpired && opts.tls ? expiredPeerProblem(socket as TLSSocket, opts.tls) : undefined;
      if (problem) {
        const err = new NodeUnavailableError(`${where}: ${problem}`);
        fail(err);
        reject(err);
        return;
      }
      socket.setNoDelay(true);
      resolve({
        call(args) {
          if (failure) return Promise.reject(failure);
          const name = commandName(args);
          return new Promise<RespValue>((res, rej) => {
            const timer = setTimeout(
              () => fail(new NodeUnavailableError(`${where}: no reply to ${name} within ${opts.commandTimeoutMs} ms`)),
              opts.commandTimeoutMs,
            );
            pending.push({
              name,
              resolve: (v) => {
                clearTimeout(timer);
                res(v);
              },
              reject: (e) => {
                clearTimeout(timer);
                rej(e);
              },
            });
            socket.write(encodeCommand(args));
          });
        },
        peerFingerprint() {
          return 'getPeerCertificate' in socket ? (socket as TLSSocket).getPeerCertificate().fingerprint256 || undefined : undefined;
        },
        peerCertificateExpired() {
          return tolerateExpired;
        },
        close() {
          fail(new NodeUnavailableError(`${where}: connection closed by the controller`));
        },
      });
    });
  });
}
