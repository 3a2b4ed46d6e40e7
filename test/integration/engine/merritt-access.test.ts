import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine } from '../../../src/engine/engine.js';
import { createHttpApi } from '../../../src/http/index.js';
import { loadAccess } from '../../../src/queue/access/requests.js';
import { listAccess, showAccess } from '../../../src/views/listing/access.js';
import { cleanupAccess, deleteAccess, requeueAccess } from '../../../src/admin/access.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { isQueueError } from '../../../src/queue/tree/errors.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { createAccessSteps } from '../../../src/steps/access/step.js';
import { writeTokenStatus } from '../../../src/steps/access/token.js';
import { createStorage } from '../../../src/steps/adapters.js';
import { createSimulatedSteps } from '../../../src/steps/simulated.js';
import { eventually } from '../../support/eventually.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { apiDeps, TOKEN } from '../http/api-fixture.js';
import { prepareWorkDir } from '../ingest/output-fixtures.js';

const chroot = useZkChroot();
const ARK = 'ark:/13030/m5access';
/** mrt-admin's fake access request (merritt-protocols.md §7). */
const FAKE_TOKEN = 'aaaaaaaa-aaaa-aaaa-aaaa-aaaaaaaaaaaa';
const auth = { authorization: `Bearer ${TOKEN}` };

/**
 * Writes an access request as mrt-zk's Java `Access.createAssembly` does: the sequential id node
 * (empty), then `token`, then `status`, three separate calls (merritt-protocols.md §7).
 */
async function writeMerrittAccess(
  ctx: QueueContext,
  queue: 'small' | 'large',
  token: object,
): Promise<string> {
  const created = await ctx.zk.create(`/access/${queue}/qid`, null, 'persistent_sequential');
  await ctx.zk.create(`${created}/token`, JSON.stringify(token));
  await ctx.zk.create(
    `${created}/status`,
    JSON.stringify({ status: 'Pending', last_modified: '2026-11-21 09:34:25 +0000', message: '' }),
  );
  return created.slice(created.lastIndexOf('/') + 1);
}

const settled = (ctx: QueueContext, queue: 'small' | 'large', qid: string) =>
  eventually(
    () => loadAccess(ctx, queue, qid),
    (r) => r.status === 'completed' || r.status === 'failed',
    30_000,
  );

describe('the access queue as Merritt writes it (merritt-protocols.md §7) and mrt-admin’s actions on it (§6)', () => {
  let ctx: QueueContext;
  let engine: Engine;
  let root: string;
  let dataDir: string;
  let app: FastifyInstance;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'mrtq-merritt-access-'));
    dataDir = join(root, 'data');
    const storage = createStorage({ dataDir, workRoot: join(root, 'work'), storage: { kind: 'local' } });
    for (const [i, content] of ['first', 'second'].entries()) {
      const dir = join(root, 'work', 'b', `j${i}`);
      const { files } = await prepareWorkDir(dir, { 'a.txt': content });
      await storage.store({ ark: ARK, workDir: dir, files, signal: new AbortController().signal });
    }
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    engine = new Engine(
      {
        queue: queueContext(await chroot.connect()),
        ...createSimulatedSteps(),
        accessSteps: createAccessSteps({ dataDir }),
        ledger: { record: () => {} },
        log: pino({ level: 'silent' }),
      },
      // Watches alone: a requeue and a status node written after its id node change only the
      // request's status node, which the engine watches while the request is not finished.
      { sweepIntervalMs: 0, jobStates: [], batchWork: [] },
    );
    await engine.start();
    app = createHttpApi(await apiDeps(ctx));
  });
  afterAll(async () => {
    await app?.close();
    await engine?.stop(1000);
    await rm(root, { recursive: true, force: true });
  });

  it('assembles a request with a bare UUID token from its token status, keeping the token’s keys and types', async () => {
    const token = '8423294b-8cb7-49e5-b42b-2a4a6f3596e2';
    await writeTokenStatus(dataDir, {
      token,
      objectIDS: ARK,
      versionID: 1,
      tokenStatusEnum: 'Queued',
      deliveryNode: 7001,
    });
    const qid = await writeMerrittAccess(ctx, 'small', {
      status: 201,
      token,
      'cloud-content-byte': 206290233,
      'delivery-node': 7001,
    });
    const done = await settled(ctx, 'small', qid);
    expect(done.status).toBe('completed');
    const zip = fileURLToPath(String(done.token.url));
    const size = (await stat(zip)).size;
    expect(done.token).toEqual({
      status: 201,
      token,
      'cloud-content-byte': size,
      'delivery-node': 7001,
      url: done.token.url,
    });
    const status = JSON.parse(await readFile(join(dataDir, 'access', token, 'status'), 'utf8')) as object;
    expect(status).toMatchObject({
      token,
      objectIDS: ARK,
      versionID: 1,
      tokenStatusEnum: 'OK',
      cloudContentBytes: size,
    });
    // The Java reader's view of the status node: its JSON keys as mrt-zk reads them.
    const written = JSON.parse(
      (await ctx.zk.getData(`/access/small/${qid}/status`)).data!.toString(),
    ) as object;
    expect(written).toMatchObject({ status: 'Completed' });
  });

  it('fails a token the embedded store does not know, naming it; requeue (→ pending) runs it again; delete and clean end it', async () => {
    const qid = await writeMerrittAccess(ctx, 'large', {
      status: 201,
      token: FAKE_TOKEN,
      'cloud-content-byte': 600_000_001,
      'delivery-node': 7777,
    });
    const failed = await settled(ctx, 'large', qid);
    expect(failed.status).toBe('failed');
    expect(failed.message).toContain(FAKE_TOKEN);
    expect(failed.message).toContain('7777');

    // Listed and shown. Each queue numbers its requests itself: the first of each is qid0000000000,
    // so a bare qid held by both queues is refused, naming both.
    const listed = await listAccess(ctx, { status: 'failed' }, { offset: 0, limit: 10 });
    expect(listed.items.map((r) => `${r.queue}/${r.qid}`)).toEqual([`large/${qid}`]);
    await expect(showAccess(ctx, qid)).rejects.toThrow(`small/${qid}, large/${qid}`);
    expect(await showAccess(ctx, `large/${qid}`)).toMatchObject({
      queue: 'large',
      qid,
      status: 'failed',
      locked: false,
    });

    // small/qid… is the other queue's (completed) request: the machine refuses to requeue it.
    await expect(requeueAccess(ctx, `small/${qid}`)).rejects.toSatisfy((e) =>
      isQueueError(e, 'INVALID_TRANSITION'),
    );

    await writeTokenStatus(dataDir, { token: FAKE_TOKEN, objectIDS: ARK, tokenStatusEnum: 'Queued' });
    expect((await requeueAccess(ctx, `large/${qid}`)).status).toBe('pending');
    const again = await settled(ctx, 'large', qid);
    expect(again).toMatchObject({ status: 'completed', message: null });
    await expect(requeueAccess(ctx, `large/${qid}`)).rejects.toSatisfy((e) =>
      isQueueError(e, 'INVALID_TRANSITION'),
    );

    expect((await deleteAccess(ctx, `large/${qid}`)).status).toBe('deleted');
    const kept = await cleanupAccess(ctx, { retentionMs: 3_600_000 });
    expect(kept.removed).toEqual([]);
    const dry = await cleanupAccess(ctx, { retentionMs: 0, dryRun: true });
    expect(dry.removed.map((r) => r.qid)).toContain(qid);
    expect(await ctx.zk.exists(`/access/large/${qid}`)).toBeDefined();
    const cleaned = await cleanupAccess(ctx, { retentionMs: 0 });
    expect(cleaned.removed).toContainEqual(
      expect.objectContaining({ queue: 'large', qid, status: 'deleted' }),
    );
    expect(await ctx.zk.exists(`/access/large/${qid}`)).toBeUndefined();
  });

  it('serves the access requests and their actions over HTTP: reads open, actions need the token and the machine’s consent', async () => {
    const qid = await writeMerrittAccess(ctx, 'small', {
      status: 201,
      token: 'not-known-here',
      'delivery-node': 9,
    });
    expect((await settled(ctx, 'small', qid)).status).toBe('failed');
    const list = await app.inject({ method: 'GET', url: '/access?status=failed&queue=small' });
    expect(list.statusCode).toBe(200);
    expect(list.json<{ items: { qid: string; token: { token: string } }[] }>().items).toContainEqual(
      expect.objectContaining({
        qid,
        token: expect.objectContaining({ token: 'not-known-here' }) as unknown,
      }) as unknown,
    );
    expect((await app.inject({ method: 'GET', url: `/access/small/${qid}` })).json()).toMatchObject({
      qid,
      status: 'failed',
    });
    expect((await app.inject({ method: 'POST', url: `/access/small/${qid}/delete` })).statusCode).toBe(401);
    const refused = await app.inject({ method: 'POST', url: `/access/small/${qid}/delete`, headers: auth });
    expect(refused.statusCode).toBe(200);
    const again = await app.inject({ method: 'POST', url: `/access/small/${qid}/requeue`, headers: auth });
    expect(again.statusCode).toBe(409);
    const clean = await app.inject({
      method: 'POST',
      url: '/access/cleanup',
      headers: auth,
      payload: { retentionMs: 0 },
    });
    expect(clean.json<{ removed: { qid: string }[] }>().removed.map((r) => r.qid)).toContain(qid);
    const openapi = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<{ paths: object }>();
    expect(Object.keys(openapi.paths)).toEqual(
      expect.arrayContaining([
        '/access',
        '/access/{queue}/{qid}',
        '/access/{queue}/{qid}/requeue',
        '/jobs/{jid}/fail',
      ]),
    );
  });
});
