import { BehaviorSubject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { settle } from '../../../src/engine/indeterminate.js';
import { ZkError, type SessionEvent, type ZkClient } from '../../../src/zk/index.js';

// Only session$ and sessionId are used by settle: a stand-in session that is connected.
const zk = {
  session$: new BehaviorSubject<SessionEvent>({ state: 'connected', sessionId: '1', at: 0 }),
  sessionId: '1',
} as unknown as ZkClient;

describe('settling a commit whose outcome is unknown', () => {
  const expected = { status: 'processing', fromVersion: 4, lockSessionId: '1' };

  it('one version further with the expected status: the multi was applied', async () => {
    expect(
      await settle(zk, () => Promise.resolve({ status: 'processing', statusVersion: 5 }), expected),
    ).toBe('applied');
  });
  it('the same version: it was not applied (safe to retry while the lock is ours)', async () => {
    expect(
      await settle(zk, () => Promise.resolve({ status: 'downloading', statusVersion: 4 }), expected),
    ).toBe('not-applied');
  });
  it('anything else: someone else moved the item on', async () => {
    expect(await settle(zk, () => Promise.resolve({ status: 'failed', statusVersion: 5 }), expected)).toBe(
      'moved-on',
    );
    expect(
      await settle(zk, () => Promise.resolve({ status: 'processing', statusVersion: 7 }), expected),
    ).toBe('moved-on');
  });
  it('a new session since the lock was taken: never applied, though another worker made the same move', async () => {
    // The lock went with the old session; another worker ran the step and committed the same
    // transition, which leaves the status exactly as our commit would have.
    const renewed = { ...expected, lockSessionId: '0' };
    expect(await settle(zk, () => Promise.resolve({ status: 'processing', statusVersion: 5 }), renewed)).toBe(
      'lock-lost',
    );
    expect(
      await settle(zk, () => Promise.resolve({ status: 'downloading', statusVersion: 4 }), renewed),
    ).toBe('lock-lost');
  });

  it('waits for the server however long it is away, then reads, and reads again after a second loss', async () => {
    const session$ = new BehaviorSubject<SessionEvent>({ state: 'disconnected', sessionId: '1', at: 0 });
    const away = { session$, sessionId: '1' } as unknown as ZkClient;
    const answers: (() => Promise<{ status: string; statusVersion: number }>)[] = [
      () =>
        Promise.reject(new ZkError('CONNECTION_LOSS', { operation: 'getData', path: '/jobs/jid1/status' })),
      () => Promise.resolve({ status: 'processing', statusVersion: 5 }),
    ];
    let reads = 0;
    const settled = settle(away, () => answers[reads++]!(), expected);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(reads).toBe(0); // no deadline of its own: it does not guess while the server is away
    session$.next({ state: 'connected', sessionId: '1', at: 1 });
    expect(await settled).toBe('applied');
    expect(reads).toBe(2);
  });
  it('a client closed before the server answers leaves the outcome unknown', async () => {
    const session$ = new BehaviorSubject<SessionEvent>({ state: 'disconnected', sessionId: '1', at: 0 });
    const closing = { session$, sessionId: '1' } as unknown as ZkClient;
    const settled = settle(closing, () => Promise.reject(new Error('not read')), expected);
    session$.next({ state: 'closed', sessionId: '1', at: 1 });
    session$.complete();
    expect(await settled).toBe('lock-lost');
  });
});
