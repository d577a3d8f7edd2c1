// The stand-in's probe: one PING to the pod's address, plain or TLS (with the pod's own
// certificate, as the rendered probe script does); the first reply line, or an error text.
import { readFileSync } from 'node:fs';
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import type { PingTarget } from './container-command.js';

export function ping(target: PingTarget, timeoutMs = 1_000): Promise<string> {
  return new Promise((resolve) => {
    let socket: Socket;
    try {
      socket = target.tls
        ? tlsConnect({
            host: target.host,
            port: target.port,
            cert: readFileSync(target.tls.cert),
            key: readFileSync(target.tls.key),
            ca: readFileSync(target.tls.ca),
            // valkey-cli checks the chain, not the name: the certificate names the pod's DNS name.
            checkServerIdentity: () => undefined,
          })
        : netConnect({ host: target.host, port: target.port });
    } catch (e) {
      resolve(`error: ${(e as Error).message}`);
      return;
    }
    let reply = '';
    const done = (text: string): void => {
      socket.destroy();
      resolve(text);
    };
    socket.setTimeout(timeoutMs, () => done('error: timeout'));
    socket.on('error', (e) => done(`error: ${e.message}`));
    socket.on(target.tls ? 'secureConnect' : 'connect', () => socket.write('PING\r\n'));
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      reply += chunk;
      const nl = reply.indexOf('\r\n');
      if (nl >= 0) done(reply.slice(0, nl));
    });
    socket.on('end', () => done(reply === '' ? 'error: closed' : reply));
  });
}

/** What the rendered probe script accepts: PONG when ready; also LOADING/MASTERDOWN for startup. */
export const isPong = (reply: string): boolean => reply === '+PONG';
export const isStarted = (reply: string): boolean => isPong(reply) || /^-(LOADING|MASTERDOWN)/.test(reply);
