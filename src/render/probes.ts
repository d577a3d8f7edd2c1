import { CLIENT_PORT } from '../api/index.js';
import { CONF_DIR, TLS_DIR } from './object.js';

/**
 * One script for all three probes. PING is the only command the `default` user may run, so the
 * probes never need credentials. Liveness accepts LOADING and MASTERDOWN: a node that is loading
 * its dataset or has lost its primary is alive, and restarting it would only make things worse.
 * Liveness never looks at cluster state; the controller reports that in status.
 */
export function renderProbeScript(tls: boolean): string {
  const tlsFlags = tls ? ` --tls --cacert ${TLS_DIR}/ca.crt --cert ${TLS_DIR}/tls.crt --key ${TLS_DIR}/tls.key` : '';
  return [
    '#!/bin/sh',
    '# valkey-krm probe: sh probe.sh startup|live|ready',
    `reply=$(valkey-cli${tlsFlags} -h 127.0.0.1 -p ${CLIENT_PORT} ping 2>&1)`,
    'case "$1:$reply" in',
    '  *:PONG) exit 0 ;;',
    '  startup:LOADING*|startup:MASTERDOWN*|live:LOADING*|live:MASTERDOWN*) exit 0 ;;',
    'esac',
    'echo "valkey-krm probe $1: $reply" >&2',
    'exit 1',
    '',
  ].join('\n');
}

const exec = (mode: string) => ({ exec: { command: ['sh', `${CONF_DIR}/probe.sh`, mode] } });

export function renderProbes() {
  return {
    // Up to 10 minutes to start before liveness takes over.
    startupProbe: { ...exec('startup'), periodSeconds: 5, timeoutSeconds: 5, failureThreshold: 120 },
    livenessProbe: { ...exec('live'), periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 6 },
    readinessProbe: { ...exec('ready'), periodSeconds: 5, timeoutSeconds: 5, failureThreshold: 2 },
  };
}
