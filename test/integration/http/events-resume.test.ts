import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobEvent } from '../../../machines/index.js';
import { startHttpApi, type RunningHttpApi } from '../../../src/http/index.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { queueContext } from '../../support/queue-context.js';
import { driveJob, expandedBatch, objectSpec } from '../../support/queue-fixtures.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { apiDeps } from './api-fixture.js';
import { openEvents, type SseConnection, type SseEvent } from './sse-client.js';

const chroot = useZkChroot();

const STEPS: [JobEvent, string][] = [
  [{ type: 'job.acquired' }, 'estimating'],
  [{ type: 'estimate.done', spaceNeeded: 10 }, 'provisioning'],
  [{ type: 'provision.done' }, 'downloading'],
  [{ type: 'download.done' }, 'processing'],
];

const data = (e: SseEvent) => e.data as { kind?: string; id?: string; to?: string };
const isJobAt = (jid: string, to: string) => (e: SseEvent) =>
  e.event === 'transition' && data(e).id === jid && data(e).to === to;
const numberOf = (e: SseEvent): number => Number(e.id?.split('-')[1]);
/** The frames of `connection` after the one with id `after`, as received. */
const since = (connection: SseConnection, after: string): SseEvent[] =>
  connection.events.slice(connection.events.findIndex((e) => e.id === after) + 1);

describe('GET /events resumes after a reconnect (Last-Event-ID), over a real listening server', () => {
  let api: RunningHttpApi;
  let ctx: QueueContext;
  /** Another session: the transitions are made by another process's client. */
  let other: QueueContext;
  const open: SseConnection[] = [];
  const connect = async (lastEventId?: string): Promise<SseConnection> => {
    const connection = await openEvents(api.url, undefined, lastEventId);
    open.push(connection);
    return connection;
  };

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    other = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    api = await startHttpApi(await apiDeps(ctx), { port: 0 });
  });
  afterAll(async () => {
    for (const connection of open) connection.close();
    await api?.close();
  });

  it('replays exactly the events a client missed while away, in order, then goes on live', async () => {
    // A witness stays connected throughout: what it receives is what the server sent.
    const witness = await connect();
    await witness.next((e) => e.event === 'ready');
    const browser = await connect();
    await browser.next((e) => e.event === 'ready');
    const { jids } = await expandedBatch(other, [objectSpec(0)]);
    const jid = jids[0]!;
    await browser.next(isJobAt(jid, 'pending'));
    browser.close(); // the connection drops
    const lastSeen = browser.events.filter((e) => e.id !== undefined).at(-1)!;

    for (const [event, to] of STEPS.slice(0, 3)) {
      await driveJob(other, jid, [event]);
      await witness.next(isJobAt(jid, to)); // the server has it before the client comes back
    }
    const missed = since(witness, lastSeen.id!);
    expect(missed.filter((e) => data(e).id === jid).map((e) => data(e).to)).toEqual([
      'estimating',
      'provisioning',
      'downloading',
    ]);

    const back = await connect(lastSeen.id);
    await back.next(isJobAt(jid, 'downloading'));
    await driveJob(other, jid, [STEPS[3]![0]]);
    await back.next(isJobAt(jid, 'processing'));
    await witness.next(isJobAt(jid, 'processing'));
    const live = since(witness, missed.at(-1)!.id!);
    // Exactly the missed frames, in order, ids and all, then the live ones; no ready, no reset.
    expect(back.events).toEqual([
      ...missed,
      ...live.filter((e) => numberOf(e) <= numberOf(back.events.at(-1)!)),
    ]);
    expect(back.events.some((e) => e.event === 'ready' || e.event === 'reset')).toBe(false);
    const numbers = back.events.map(numberOf);
    expect(numbers).toEqual([...numbers].sort((a, b) => a - b));
    expect(numbers[0]).toBe(numberOf(lastSeen) + 1);
    witness.close();
  });

  it('replays to the only client too: the subscription outlives it for a while', async () => {
    const only = await connect();
    await only.next((e) => e.event === 'ready');
    const { jids } = await expandedBatch(other, [objectSpec(0)]);
    const jid = jids[0]!;
    await only.next(isJobAt(jid, 'pending'));
    only.close();
    const lastSeen = only.events.filter((e) => e.id !== undefined).at(-1)!;
    for (const [event] of STEPS.slice(0, 2)) await driveJob(other, jid, [event]);

    const back = await connect(lastSeen.id);
    await back.next(isJobAt(jid, 'provisioning'));
    const ofJob = back.events.filter((e) => data(e).id === jid);
    expect(ofJob.map((e) => data(e).to)).toEqual(['estimating', 'provisioning']);
    expect(back.events[0]!.event).toBe('transition');
    expect(numberOf(back.events[0]!)).toBe(numberOf(lastSeen) + 1);
  });

  it('sends reset, not ready, to a client whose Last-Event-ID it does not hold (another process, or too old)', async () => {
    for (const lastEventId of ['0123abcd-5', 'not-an-id']) {
      const stranger = await connect(lastEventId);
      const first = await stranger.next(() => true);
      expect(first.event, lastEventId).toBe('reset');
      expect(first.data).toMatchObject({ lastEventId });
      expect(first.id).toMatch(/^[0-9a-f]+-\d+$/);
      // It then goes on live like any client: its own id resumes it next time.
      const { jids } = await expandedBatch(other, [objectSpec(0)]);
      await stranger.next(isJobAt(jids[0]!, 'pending'));
      expect(stranger.events.some((e) => e.event === 'ready')).toBe(false);
      stranger.close();
    }
  });
});
