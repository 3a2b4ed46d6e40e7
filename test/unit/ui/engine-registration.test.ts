import { merrittJobLifecycle } from '../../../machines/index.js';
import { pino } from 'pino';
import { BehaviorSubject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import {
  engineOfSession,
  listEngines,
  registerEngine,
  type EngineAnnouncement,
} from '../../../src/queue/tree/engines.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ZkError, type Op, type SessionEvent, type ZkClient } from '../../../src/zk/index.js';

/** Just enough of a ZooKeeper server for ephemeral nodes: they belong to a session and go with it. */
class FakeZk {
  readonly nodes = new Map<string, { data: Buffer; owner: string; version: number }>();
  readonly session$ = new BehaviorSubject<SessionEvent>({ state: 'connected', sessionId: 'a1', at: 0 });
  sessionId = 'a1';

  mkdirp(): Promise<void> {
    return Promise.resolve();
  }
  create(path: string, data: Buffer, mode?: string): Promise<string> {
    if (this.nodes.has(path)) return Promise.reject(new ZkError('NODE_EXISTS', { path }));
    this.nodes.set(path, { data, owner: mode === 'ephemeral' ? this.sessionId : '0', version: 0 });
    return Promise.resolve(path);
  }
  exists(path: string) {
    const node = this.nodes.get(path);
    return Promise.resolve(node ? { version: node.version, ephemeralOwner: node.owner } : undefined);
  }
  delete(path: string): Promise<void> {
    if (!this.nodes.delete(path)) return Promise.reject(new ZkError('NO_NODE', { path }));
    return Promise.resolve();
  }
  async multi(ops: Op[]): Promise<unknown[]> {
    for (const op of ops) {
      if (op.op === 'delete') await this.delete(op.path);
      if (op.op === 'create') await this.create(op.path, op.data as Buffer, op.mode);
    }
    return [];
  }
  getChildren(path: string): Promise<string[]> {
    const prefix = `${path}/`;
    return Promise.resolve(
      [...this.nodes.keys()].filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length)),
    );
  }
  getData(path: string) {
    const node = this.nodes.get(path);
    if (!node) return Promise.reject(new ZkError('NO_NODE', { path }));
    return Promise.resolve({ data: node.data, stat: { ephemeralOwner: node.owner } });
  }

  /** The session expires (its ephemeral nodes go), then the client makes a new one. */
  replaceSession(next: string, keepOldNodes = false): void {
    const old = this.sessionId;
    if (!keepOldNodes) for (const [path, node] of this.nodes) if (node.owner === old) this.nodes.delete(path);
    this.session$.next({ state: 'expired', sessionId: old, at: 1 });
    this.sessionId = next;
    this.session$.next({ state: 'connected', sessionId: next, at: 2 });
  }
}

const announcement: EngineAnnouncement = {
  host: 'host-a',
  pid: 42,
  version: '1.2.3',
  states: ['pending', 'downloading'],
  batchWork: ['expand'],
  startedAt: '2026-05-01T10:00:00.000Z',
  httpUrl: 'http://127.0.0.1:8470',
};

function context(zk: FakeZk): QueueContext {
  return {
    zk: zk as unknown as ZkClient,
    lifecycle: merrittJobLifecycle,
    log: pino({ level: 'silent' }),
    now: () => new Date(),
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

describe('an engine process registered in /engines', () => {
  it('is listed with what it serves and its session, and found as the owner of a lock of that session', async () => {
    const zk = new FakeZk();
    const ctx = context(zk);
    const registration = await registerEngine(ctx, announcement, 'host-a-42-abcdef');
    const engines = await listEngines(ctx);
    expect(engines).toEqual([{ id: 'host-a-42-abcdef', ...announcement, sessionId: 'a1' }]);
    expect(engineOfSession(engines, '0xA1')?.id).toBe('host-a-42-abcdef');
    expect(engineOfSession(engines, 'b2')).toBeUndefined();
    await registration.close();
    expect(await listEngines(ctx)).toEqual([]);
  });

  it('is written again, with the new session id, when its session is replaced', async () => {
    const zk = new FakeZk();
    const ctx = context(zk);
    const registration = await registerEngine(ctx, announcement, 'host-a-42-abcdef');
    zk.replaceSession('b2');
    await settle();
    expect((await listEngines(ctx)).map((e) => [e.id, e.sessionId])).toEqual([['host-a-42-abcdef', 'b2']]);
    await registration.close();
    expect(zk.nodes.size).toBe(0);
  });

  it('replaces its node left by the old session when the server has not removed it yet', async () => {
    const zk = new FakeZk();
    const ctx = context(zk);
    const registration = await registerEngine(ctx, announcement, 'host-a-42-abcdef');
    zk.replaceSession('c3', true);
    await settle();
    const [engine] = await listEngines(ctx);
    expect(engine?.sessionId).toBe('c3');
    expect(zk.nodes.get('/engines/host-a-42-abcdef')?.owner).toBe('c3');
    await registration.close();
  });

  it('leaves the node alone after close, whatever the session does', async () => {
    const zk = new FakeZk();
    const ctx = context(zk);
    const registration = await registerEngine(ctx, announcement, 'host-a-42-abcdef');
    await registration.close();
    zk.replaceSession('d4');
    await settle();
    expect(zk.nodes.size).toBe(0);
  });
});
