import { BehaviorSubject } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { settle } from '../../../src/engine/indeterminate.js';
import type { SessionEvent, ZkClient } from '../../../src/zk/index.js';

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
});
