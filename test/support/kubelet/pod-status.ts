// The pod status a kubelet would write for one single-container pod: phase, IPs, the five
// conditions and the container's state, last state, restart count and readiness.

export interface TerminatedState {
  exitCode: number;
  signal?: number;
  reason: string;
  message?: string;
  startedAt: string;
  finishedAt: string;
  containerID: string;
}

export type ContainerState =
  | { waiting: { reason: string; message?: string } }
  | { running: { startedAt: string } }
  | { terminated: TerminatedState };

export interface ContainerView {
  name: string;
  image: string;
  containerID?: string;
  state: ContainerState;
  lastState?: { terminated: TerminatedState };
  restartCount: number;
  started: boolean;
  ready: boolean;
}

export interface PodView {
  hostIp: string;
  podIp?: string;
  startTime: string;
  container: ContainerView;
}

type ConditionType = 'PodReadyToStartContainers' | 'Initialized' | 'ContainersReady' | 'Ready' | 'PodScheduled';

/** Remembers when each condition last changed, as lastTransitionTime must. */
export class ConditionClock {
  private readonly seen = new Map<ConditionType, { status: string; at: string }>();

  at(type: ConditionType, status: string): string {
    const prev = this.seen.get(type);
    if (prev?.status === status) return prev.at;
    const at = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
    this.seen.set(type, { status, at });
    return at;
  }
}

export function podStatus(view: PodView, clock: ConditionClock): Record<string, unknown> {
  const c = view.container;
  const running = 'running' in c.state;
  const ready = running && c.ready;
  const condition = (type: ConditionType, ok: boolean, reason?: string) => ({
    type,
    status: ok ? 'True' : 'False',
    lastProbeTime: null,
    lastTransitionTime: clock.at(type, ok ? 'True' : 'False'),
    ...(ok || reason === undefined ? {} : { reason }),
  });
  const everStarted = running || c.restartCount > 0 || c.lastState !== undefined || 'terminated' in c.state;
  return {
    phase: everStarted ? 'Running' : 'Pending',
    hostIP: view.hostIp,
    hostIPs: [{ ip: view.hostIp }],
    ...(view.podIp === undefined ? {} : { podIP: view.podIp, podIPs: [{ ip: view.podIp }] }),
    startTime: view.startTime,
    conditions: [
      condition('PodReadyToStartContainers', view.podIp !== undefined),
      condition('Initialized', true),
      condition('Ready', ready, 'ContainersNotReady'),
      condition('ContainersReady', ready, 'ContainersNotReady'),
      condition('PodScheduled', true),
    ],
    containerStatuses: [
      {
        name: c.name,
        image: c.image,
        imageID: '',
        ...(c.containerID === undefined ? {} : { containerID: c.containerID }),
        state: c.state,
        lastState: c.lastState ?? {},
        ready,
        started: running && c.started,
        restartCount: c.restartCount,
      },
    ],
  };
}
