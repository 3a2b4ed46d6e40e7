import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../src/engine/engine.js';
import { createAccess, loadAccess } from '../../../src/queue/access/requests.js';
import { requeueAccess } from '../../../src/admin/access.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { createSimulatedSteps } from '../../../src/steps/simulated.js';
import { connectZk, type ZkClient } from '../../../src/zk/index.js';
import { fourLetterWord } from '../../../src/zk-server/four-letter.js';
import { eventually } from '../../support/eventually.js';
import { startPrivateServer } from '../../support/private-server.js';
import { queueContext } from '../../support/queue-context.js';
import { SessionRecorder } from '../zk/session-recorder.js';

// mrt-admin's requeue (merritt-protocols.md §6) and mrt-zk's Java `Access.createAssembly` (§7)
// change a request's status node, not its queue's children: only a watch on the status sees them.

/** The engine's session: short, so that a freeze loses it quickly. */
const ENGINE_SESSION_MS = 2000;
const normalise = (id: string): string =>
  id
    .trim()
    .toLowerCase()
    .replace(/^0x/, '')
    .replace(/^0+(?=.)/, '');

describe('the access consumer watches the status of every unfinished request, and only those', () => {
  let server: Awaited<ReturnType<typeof startPrivateServer>>;
  let ctx: QueueContext;
  let engineZk: ZkClient;
  let engine: Engine;
  const finishedBefore: string[] = [];

  /** The server's watches by path (`wchp`), each with the sessions that hold one. */
  const watches = async (): Promise<Map<string, string[]>> => {
    const text = await fourLetterWord(server.server.host, server.server.port, 'wchp', 5000);
    const byPath = new Map<string, string[]>();
    let path: string | undefined;
    for (const line of text.split('\n')) {
      if (line.startsWith('/')) byPath.set((path = line.trim()), []);
      else if (path && line.trim() !== '') byPath.get(path)!.push(normalise(line));
    }
    return byPath;
  };
  const statusPath = (qid: string): string => `/access/large/${qid}/status`;
  const statusOf = (qid: string) => loadAccess(ctx, 'large', qid);
  const failedRequest = async (): Promise<string> => {
    const qid = await createAccess(ctx, 'large', { token: 'to-fail', simulate_fail: true });
    await eventually(
      () => statusOf(qid),
      (r) => r.status === 'failed',
      15_000,
    );
    return qid;
  };
  /** What mrt-admin's Requeue does once the cause is mended: the status back to Pending. */
  const mendAndRequeue = async (qid: string): Promise<void> => {
    await ctx.zk.setData(`/access/large/${qid}/token`, JSON.stringify({ token: 'mended' }));
    await requeueAccess(ctx, `large/${qid}`);
  };

  beforeAll(async () => {
    server = await startPrivateServer();
    ctx = queueContext(
      await connectZk({ connectString: server.server.connectString, sessionTimeoutMs: 20_000 }),
    );
    await ensureQueueTree(ctx.zk);
    for (let i = 0; i < 3; i++) {
      const qid = await createAccess(ctx, 'large', { token: `done-${i}` });
      const status = { status: 'Completed', last_modified: '2026-11-21 09:34:25 +0000' };
      await ctx.zk.setData(statusPath(qid), JSON.stringify(status));
      finishedBefore.push(qid);
    }
    engineZk = await connectZk({
      connectString: server.server.connectString,
      sessionTimeoutMs: ENGINE_SESSION_MS,
    });
    engine = new Engine(
      {
        queue: queueContext(engineZk),
        ...createSimulatedSteps(),
        ledger: { record: () => {} },
        log: pino({ level: 'silent' }),
      },
      // The sweep off: only watches can find a requeued request.
      { sweepIntervalMs: 0, jobStates: [], batchWork: [] },
    );
    await engine.start();
  });
  afterAll(async () => {
    await engine?.stop(1000);
    await engineZk?.close();
    await ctx?.zk.close();
    await server?.dispose();
  });

  it('a requeued request (Failed → Pending) is run again at once; a finished request keeps no watch', async () => {
    const qid = await failedRequest();
    // Failed may be requeued: watched. The requests completed before the engine started are not.
    const armed = await eventually(watches, (byPath) => byPath.has(statusPath(qid)), 10_000);
    for (const done of finishedBefore) expect([...armed.keys()]).not.toContain(statusPath(done));

    await mendAndRequeue(qid);
    const done = await eventually(
      () => statusOf(qid),
      (r) => r.status === 'completed',
      15_000,
    );
    expect(done.token).toMatchObject({ token: 'mended', url: `sim://access/${qid}.zip` });
    // The watch that saw it complete is not armed again.
    expect([...(await watches()).keys()]).not.toContain(statusPath(qid));
  });

  it('after its session is lost and replaced, the status watches are armed on the new session', async () => {
    const qid = await failedRequest();
    const recorder = new SessionRecorder(engineZk);
    const before = normalise(engineZk.sessionId);
    server.server.freeze();
    try {
      await recorder.waitFor('expired', 0, 30_000);
    } finally {
      server.server.thaw();
    }
    const renewed = await eventually(
      async () => ({ session: normalise(engineZk.sessionId), byPath: await watches() }),
      ({ session, byPath }) => session !== before && (byPath.get(statusPath(qid)) ?? []).includes(session),
      30_000,
      100,
    );
    expect(renewed.session).not.toBe(before);

    await mendAndRequeue(qid);
    await eventually(
      () => statusOf(qid),
      (r) => r.status === 'completed',
      15_000,
    );
  }, 90_000);
});
