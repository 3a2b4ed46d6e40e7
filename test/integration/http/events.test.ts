import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobEvent, JobState } from '../../../machines/index.js';
import { startHttpApi, type RunningHttpApi } from '../../../src/http/index.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { queueContext } from '../../support/queue-context.js';
import { driveJob, expandedBatch, objectSpec } from '../../support/queue-fixtures.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { apiDeps, client } from './api-fixture.js';
import { openEvents, type SseConnection, type SseEvent } from './sse-client.js';

const chroot = useZkChroot();

const WALK: [JobEvent, JobState][] = [
  [{ type: 'job.acquired' }, 'estimating'],
  [{ type: 'estimate.done', spaceNeeded: 10 }, 'provisioning'],
  [{ type: 'provision.done' }, 'downloading'],
  [{ type: 'download.done' }, 'processing'],
  [{ type: 'process.done' }, 'storing'],
  [{ type: 'store.done' }, 'recording'],
  [{ type: 'record.done' }, 'notify'],
  [{ type: 'notify.done' }, 'completed'],
];

const isTransition =
  (kind: string, id: string, to: string) =>
  (e: SseEvent): boolean => {
    const data = e.data as { kind?: string; id?: string; to?: string };
    return e.event === 'transition' && data.kind === kind && data.id === id && data.to === to;
  };

describe('GET /events over a real listening server', () => {
  let api: RunningHttpApi;
  let ctx: QueueContext;
  /** Another session: transitions made by any process are seen. */
  let other: QueueContext;
  let events: SseConnection;
  let baseline: { bid: string; jids: string[] };

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    other = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    // A batch that exists before the stream starts is baseline: no transition for it.
    baseline = await expandedBatch(ctx, [objectSpec(0)]);
    api = await startHttpApi(await apiDeps(ctx), { port: 0 });
    events = await openEvents(api.url);
    await events.next((e) => e.event === 'ready');
  });
  afterAll(async () => {
    events?.close();
    await api?.close();
  });

  it('delivers every transition of a job driven through its states by another session', async () => {
    const { bid, jids } = await expandedBatch(other, [objectSpec(0)]);
    const jid = jids[0]!;
    const created = await events.next(isTransition('job', jid, 'pending'));
    expect(created.data).toMatchObject({ kind: 'job', id: jid, from: null, to: 'pending' });
    await events.next(isTransition('batch', bid, 'processing'));
    let from: JobState = 'pending';
    for (const [event, to] of WALK) {
      await driveJob(other, jid, [event]);
      const seen = await events.next(isTransition('job', jid, to));
      expect(seen.data).toMatchObject({ from, to });
      expect(Date.parse((seen.data as { at: string }).at)).not.toBeNaN();
      from = to;
    }
    const transitionsOfJob = events.events.filter((e) => (e.data as { id?: string }).id === jid);
    expect(transitionsOfJob.map((e) => (e.data as { to: string }).to)).toEqual([
      'pending',
      ...WALK.map(([, to]) => to),
    ]);
  });

  it('delivers batch transitions made through the API: submitted, held, released', async () => {
    const http = client(api.url);
    const { body } = await http.post<{ bid: string }>('/batches', {
      profile: 'demo',
      submitter: 'ann',
      payloadUrl: 'sim:1',
      type: 'file',
    });
    const bid = body.bid;
    expect((await events.next(isTransition('batch', bid, 'pending'))).data).toMatchObject({ from: null });
    expect((await http.post(`/batches/${bid}/hold`)).status).toBe(200);
    expect((await events.next(isTransition('batch', bid, 'held'))).data).toMatchObject({ from: 'pending' });
    expect((await http.post(`/batches/${bid}/release`)).status).toBe(200);
    expect((await events.next(isTransition('batch', bid, 'pending'))).data).toMatchObject({ from: 'held' });
  });

  it('tells a second client it is ready at once (the feed is shared) and stops the stream on close', async () => {
    const second = await openEvents(api.url);
    try {
      await second.next((e) => e.event === 'ready', 2_000);
    } finally {
      second.close();
    }
    // Items that existed before the stream started are its baseline: no transition for them.
    const ids = events.events.map((e) => (e.data as { id?: string }).id);
    expect(ids.length).toBeGreaterThan(5);
    expect(ids).not.toContain(baseline.bid);
    expect(ids).not.toContain(baseline.jids[0]);
  });
});
