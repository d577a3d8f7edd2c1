import { CLIENT_PORT, SYSTEM_USERNAMES } from '../api/index.js';
import { CONF_DIR, REPLICATION_PASSWORD_ENV, TLS_DIR } from './object.js';
import { deepFreeze } from './frozen.js';

/**
 * One script for all three probes (DESIGN §6.2, docs/operations.md "Kubernetes maintenance").
 *
 * Startup and liveness ask PING as `default`, which may run nothing else, so they need no
 * credentials. Liveness accepts LOADING and MASTERDOWN: a node that is loading its dataset or has
 * lost its primary is alive, and restarting it would only make things worse. Liveness never looks
 * at cluster state; the controller reports that in status.
 *
 * Readiness means "holds a full copy of its shard's data", because the shard's PodDisruptionBudget
 * counts Ready pods: a replica whose link to its primary is up and not syncing (ROLE says
 * `connected`), or a primary that owns slots (its `myself` line in CLUSTER NODES lists some). An
 * empty node (a re-created pod not yet attached, a replica still loading its copy) is not Ready,
 * so a drain waits for it instead of evicting the shard's last copy. It asks as the replication
 * user, whose password the container has already (for `masterauth`), with the pure shell of any
 * image (no awk, sed or grep). A node whose users.acl predates `+role` (the window between the
 * kubelet projecting the new files and the controller's ACL LOAD) answers NOPERM: the probe then
 * falls back to PING, as before.
 */
/** How long the preStop hook holds a primary for the controller's handover, inside the 30 s grace period. */
export const HANDOVER_HOLD_SECONDS = 15;

/** The script for a cluster with or without TLS: the same string for every cluster of a kind, made once. */
export const renderProbeScript = (tls: boolean): string => (probeScripts[tls ? 1 : 0] ??= probeScript(tls));
const probeScripts: [string?, string?] = [];

function probeScript(tls: boolean): string {
  const tlsFlags = tls ? ` --tls --cacert ${TLS_DIR}/ca.crt --cert ${TLS_DIR}/tls.crt --key ${TLS_DIR}/tls.key` : '';
  const cli = `valkey-cli${tlsFlags} -h 127.0.0.1 -p ${CLIENT_PORT}`;
  const user = SYSTEM_USERNAMES.replication;
  return [
    '#!/bin/sh',
    '# valkey-krm probe: sh probe.sh startup|live|ready|handover',
    ...handoverHold(cli, user),
    `reply=$(${cli} ping 2>&1)`,
    'case "$1:$reply" in',
    '  ready:PONG) ;;',
    '  *:PONG) exit 0 ;;',
    '  startup:LOADING*|startup:MASTERDOWN*|live:LOADING*|live:MASTERDOWN*) exit 0 ;;',
    // A node at maxclients refuses every new connection, the probe's too, from its event loop: it
    // is alive, and a restart would drop every client and, with no replica, its data.
    "  startup:'ERR max number of clients'*|live:'ERR max number of clients'*) exit 0 ;;",
    '  *) echo "valkey-krm probe $1: $reply" >&2; exit 1 ;;',
    'esac',
    '# Ready = holds a full copy of the shard: the PodDisruptionBudget counts only such pods.',
    `out=$(printf 'ROLE\\nCLUSTER NODES\\n' | VALKEYCLI_AUTH="$${REPLICATION_PASSWORD_ENV}" ${cli} --user ${user} 2>&1)`,
    'set -f',
    'n=0 role= primary= state= slots=no',
    'while IFS= read -r line; do',
    '  n=$((n + 1))',
    '  case $n in 1) role=$line ;; 2) primary=$line ;; 3) primary=$primary:$line ;; 4) state=$line ;; esac',
    '  case $line in *" myself,master"* | *" myself,primary"*) set -- $line; [ $# -gt 8 ] && slots=yes ;; esac',
    'done <<EOF',
    '$out',
    'EOF',
    'why=',
    'case $role:$state:$slots in',
    '  slave:connected:* | replica:connected:* | master:*:yes | primary:*:yes) exit 0 ;;',
    '  slave:* | replica:*)',
    '    why="a replica of $primary whose link is $state (not connected and in sync): it does not hold a full copy yet" ;;',
    '  master:* | primary:*)',
    '    why="a primary that owns no slots (an empty node: a cluster not formed yet, a re-created pod not yet attached as a replica, or a new shard before it gets slots)" ;;',
    'esac',
    'case $out in',
    `  *"NOPERM User ${user} "*) exit 0 ;;`,
    `  *"AUTH failed"*) why="cannot authenticate as ${user}: $out" ;;`,
    'esac',
    '[ -n "$why" ] || why="unexpected reply: $out"',
    'echo "valkey-krm probe ready: not ready: $why; the shard\'s PodDisruptionBudget does not count this pod until it holds a full copy of the shard\'s data" >&2',
    'exit 1',
    '',
  ].join('\n');
}

/**
 * `handover`, the preStop hook: a pod being stopped (an eviction, a deletion) that is a primary
 * with replicas attached waits, up to HANDOVER_HOLD_SECONDS, until it is one no more. The controller
 * sees the pod being deleted and hands its shard to an in-sync replica with a graceful `CLUSTER
 * FAILOVER` (controller/cluster/drain-handover.ts), which measured zero loss and sub-second pauses
 * in every roll; Valkey's own handover on SIGTERM (`shutdown-on-sigterm failover`) failed about one
 * stop in five on three nodes and left the shard unserved for `cluster-node-timeout`. Any other pod
 * (a replica, a primary with no replica, a server that does not answer) goes on at once, and so
 * does a primary when the hold runs out (the controller down): SIGTERM then gets Valkey's handover,
 * as before, with the rest of the grace period.
 */
function handoverHold(cli: string, user: string): string[] {
  return [
    'if [ "$1" = handover ]; then',
    '  i=0',
    `  while [ $i -lt ${HANDOVER_HOLD_SECONDS} ]; do`,
    // valkey-cli paces the loop itself (-i 1: it waits a second after the command): an image may have no sleep.
    `    out=$(VALKEYCLI_AUTH="$${REPLICATION_PASSWORD_ENV}" ${cli} --user ${user} -r 1 -i 1 ROLE 2>&1)`,
    '    n=0 role=',
    '    while IFS= read -r line; do n=$((n + 1)); [ $n -eq 1 ] && role=$line; done <<EOF',
    '$out',
    'EOF',
    '    # ROLE of a primary: "master", its offset, then ip, port and offset per attached replica.',
    '    case $role in master | primary) [ $n -gt 2 ] || exit 0 ;; *) exit 0 ;; esac',
    '    [ $i -eq 0 ] && echo "valkey-krm preStop: a primary with replicas: waiting for the controller to hand the shard over" >&2',
    '    i=$((i + 1))',
    '  done',
    '  exit 0',
    'fi',
  ];
}

const exec = (mode: string) => ({ exec: { command: ['sh', `${CONF_DIR}/probe.sh`, mode] } });

const PROBES = deepFreeze({
  // Up to 10 minutes to start before liveness takes over.
  startupProbe: { ...exec('startup'), periodSeconds: 5, timeoutSeconds: 5, failureThreshold: 120 },
  livenessProbe: { ...exec('live'), periodSeconds: 10, timeoutSeconds: 5, failureThreshold: 6 },
  readinessProbe: { ...exec('ready'), periodSeconds: 5, timeoutSeconds: 5, failureThreshold: 2 },
});

const LIFECYCLE = deepFreeze({ preStop: exec('handover') });

/** The preStop hook that holds a stopping primary for the controller's handover (handoverHold). */
export function renderLifecycle() {
  return LIFECYCLE;
}

/** The same (frozen, shared) probes for every container. */
export function renderProbes() {
  return PROBES;
}
