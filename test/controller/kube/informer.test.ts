import { describe, expect, it } from 'vitest';
import { ApiError, type KubeClient, type WatchInit } from '../../../src/controller/kube/client.js';
import { Informer, type InformerError, type InformerEvent } from '../../../src/controller/kube/informer.js';
import type { ApiObject } from '../../../src/controller/kube/types.js';
import { FakeClock, flush } from '../../support/fake-clock.js';

const obj = (name: string, rv: string): ApiObject => ({ metadata: { name, namespace: 'ns', resourceVersion: rv } });

interface OpenWatch {
  init: WatchInit;
  send(type: string, object: unknown): void;
  end(): void;
  fail(e: Error): void;
}

/** An API server the test scripts: lists come from a queue of answers, watches are driven by hand. */
class ScriptedApi implements KubeClient {
  readonly lists: (ApiObject[] | Error)[] = [];
  listRv = 0;
  readonly watches: OpenWatch[] = [];
  readonly watchRvs: string[] = [];

  async request<T>(_method: string, _path: string): Promise<T> {
    const next = this.lists.shift();
    if (next === undefined) throw new Error('no scripted list answer');
    if (next instanceof Error) throw next;
    this.listRv += 10;
    return { metadata: { resourceVersion: String(this.listRv) }, items: next } as T;
  }

  watch(_path: string, init: WatchInit): Promise<void> {
    this.watchRvs.push(String(init.query.resourceVersion));
    return new Promise((resolve, reject) => {
      init.signal.addEventListener('abort', () => resolve(), { once: true });
      this.watches.push({
        init,
        send: (type, object) => init.onLine(JSON.stringify({ type, object })),
        end: resolve,
        fail: reject,
      });
    });
  }

  get current(): OpenWatch {
    const w = this.watches[this.watches.length - 1];
    if (!w) throw new Error('no watch open');
    return w;
  }
}

function setup() {
  const clock = new FakeClock();
  const api = new ScriptedApi();
  const events: string[] = [];
  const errors: InformerError[] = [];
  const informer = new Informer<ApiObject>({
    name: 'things',
    client: api,
    path: '/api/v1/things',
    clock,
    backoff: { initialMs: 500, maxMs: 2000 },
    onEvent: (e: InformerEvent<ApiObject>) => events.push(`${e.type} ${e.object.metadata.name}@${e.object.metadata.resourceVersion}`),
    onError: (e) => errors.push(e),
  });
  return { clock, api, events, errors, informer };
}

describe('Informer', () => {
  it('lists, then watches from the list resourceVersion, and keeps the store in step', async () => {
    const { api, events, informer } = setup();
    api.lists.push([obj('a', '1'), obj('b', '2')]);
    informer.start();
    await flush();
    expect(informer.hasSynced()).toBe(true);
    expect(api.watchRvs).toEqual(['10']);
    api.current.send('MODIFIED', obj('a', '11'));
    api.current.send('ADDED', obj('c', '12'));
    api.current.send('DELETED', obj('b', '13'));
    api.current.send('BOOKMARK', { metadata: { name: '', resourceVersion: '15' } });
    expect(
      informer
        .list()
        .map((o) => o.metadata.name)
        .sort(),
    ).toEqual(['a', 'c']);
    // The server ends a watch after timeoutSeconds: watch again from the last version seen.
    api.current.end();
    await flush();
    expect(api.watchRvs).toEqual(['10', '15']);
    expect(events).toEqual(['added a@1', 'added b@2', 'modified a@11', 'added c@12', 'deleted b@13']);
    await informer.stop();
  });

  it('relists on 410 Gone in a watch ERROR event and reports what changed meanwhile', async () => {
    const { api, events, errors, informer } = setup();
    api.lists.push([obj('a', '1'), obj('b', '2')], [obj('a', '5'), obj('c', '6')]);
    informer.start();
    await flush();
    api.current.send('ERROR', { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 10 (20)' });
    api.current.end();
    await flush();
    expect(informer.lists).toBe(2);
    expect(events.slice(2)).toEqual(['modified a@5', 'added c@6', 'deleted b@2']);
    expect(errors.map((e) => [e.phase, e.reason, e.retryInMs, e.error.message])).toEqual([
      ['watch', 'gone', 0, 'watch /api/v1/things: 410 too old resource version: 10 (20)'],
    ]);
    expect(api.watchRvs).toEqual(['10', '20']);
    await informer.stop();
  });

  it('relists when the watch request itself answers 410', async () => {
    const { api, informer } = setup();
    api.lists.push([obj('a', '1')], [obj('a', '1')]);
    informer.start();
    await flush();
    api.current.fail(new ApiError(410, 'Gone', 'watch /api/v1/things: 410 Gone'));
    await flush();
    expect(informer.lists).toBe(2);
    await informer.stop();
  });

  it('backs off on connection errors (capped, exponential), resumes the watch without relisting, resets on success', async () => {
    const { clock, api, errors, informer } = setup();
    api.lists.push([obj('a', '1')]);
    informer.start();
    await flush();
    for (let i = 0; i < 4; i++) {
      api.current.fail(new Error('connect ECONNREFUSED 127.0.0.1:6443'));
      await flush();
      await clock.advance(errors[errors.length - 1]?.retryInMs ?? 0);
    }
    expect(errors.map((e) => e.retryInMs)).toEqual([500, 1000, 2000, 2000]);
    expect(informer.lists).toBe(1);
    expect(api.watchRvs).toEqual(['10', '10', '10', '10', '10']);
    api.current.send('MODIFIED', obj('a', '30'));
    api.current.fail(new Error('socket hang up'));
    await flush();
    expect(errors[errors.length - 1]?.retryInMs).toBe(500);
    await clock.advance(500);
    expect(api.watchRvs[api.watchRvs.length - 1]).toBe('30');
    await informer.stop();
  });

  it('keeps retrying a failing list with backoff and is not synced until one succeeds', async () => {
    const { clock, api, errors, informer } = setup();
    api.lists.push(new Error('503 Service Unavailable'), new Error('503 Service Unavailable'), [obj('a', '1')]);
    informer.start();
    await flush();
    expect(informer.hasSynced()).toBe(false);
    await clock.advance(500);
    await clock.advance(1000);
    expect(informer.hasSynced()).toBe(true);
    expect(errors.map((e) => [e.phase, e.retryInMs])).toEqual([
      ['list', 500],
      ['list', 1000],
    ]);
    await informer.stop();
  });

  it('stop ends the loop even while it sleeps', async () => {
    const { api, informer, clock } = setup();
    api.lists.push(new Error('boom'));
    informer.start();
    await flush();
    await informer.stop();
    expect(clock.pending).toBe(0);
  });
});
