import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { JobEvent } from '../../../machines/index.js';
import { createHttpApi } from '../../../src/http/index.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { eventually } from '../../support/eventually.js';
import { queueContext } from '../../support/queue-context.js';
import { driveJob, expandedBatch, objectSpec } from '../../support/queue-fixtures.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { apiDeps } from './api-fixture.js';

/**
 * Rollups, sorted lists and batch progress on a 20,000-job queue (or MRTQ_ROLLUP_JOBS), run alone
 * by `npm run test:large`. It prints what each answer cost: the first rollup builds the job index
 * (every job read once), the next ones read only jobs that moved.
 */
const chroot = useZkChroot();
const COUNT = Number(process.env.MRTQ_ROLLUP_JOBS ?? 20_000);
const PER_BATCH = 5_000;
const MOVED = 100;
const DEADLINE = Math.max(180_000, COUNT * 8);

type Rollups = {
  groups: { key: string; total: number; states: Record<string, number> }[];
  index: { jobs: number; lastRead: number; lastRefreshMs: number };
};

describe(`rollups and sorted lists on a ${COUNT.toLocaleString('en')}-job queue`, () => {
  let ctx: QueueContext;
  let app: FastifyInstance;
  const batches: { bid: string; jids: string[]; profile: string }[] = [];

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    for (let from = 0, n = 0; from < COUNT; from += PER_BATCH, n += 1) {
      const profile = n % 2 === 0 ? 'demo' : 'other';
      const specs = Array.from({ length: Math.min(PER_BATCH, COUNT - from) }, (_, i) =>
        objectSpec(from + i, { profile_name: profile, collection: profile }, (from + i) % 10),
      );
      batches.push({ ...(await expandedBatch(ctx, specs, { profile_name: profile })), profile });
    }
    app = createHttpApi(await apiDeps(ctx));
  }, DEADLINE);
  afterAll(async () => {
    await app?.close();
  });

  const timed = async <T>(url: string): Promise<{ body: T; ms: number }> => {
    const started = performance.now();
    const res = await app.inject({ method: 'GET', url });
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    return { body: res.json<T>(), ms: Math.round(performance.now() - started) };
  };
  const expected = (profile: string) =>
    batches.filter((b) => b.profile === profile).reduce((n, b) => n + b.jids.length, 0);

  it(
    'counts every job by profile; a later request reads only the jobs that moved',
    async () => {
      const first = await timed<Rollups>('/rollups?by=profile');
      const again = await timed<Rollups>('/rollups?by=profile');
      for (const profile of ['demo', 'other'])
        expect(first.body.groups.find((g) => g.key === profile)?.states).toEqual({
          pending: expected(profile),
        });
      const toEstimating: JobEvent[] = [{ type: 'job.acquired' }];
      for (const jid of batches[0]!.jids.slice(0, MOVED)) await driveJob(ctx, jid, toEstimating);
      const after = await eventually(
        () => timed<Rollups>('/rollups?by=collection'),
        (r) => r.body.groups.find((g) => g.key === 'demo')?.states.estimating === MOVED,
        30_000,
        500,
      );
      expect(after.body.groups.find((g) => g.key === 'demo')!.states).toEqual({
        pending: expected('demo') - MOVED,
        estimating: MOVED,
      });
      console.log(
        `rollups on ${COUNT} jobs: first ${first.ms} ms (index built, ${first.body.index.lastRead} jobs read ` +
          `in ${first.body.index.lastRefreshMs} ms), again ${again.ms} ms, after ${MOVED} moved ${after.ms} ms ` +
          `(${after.body.index.lastRead} read in ${after.body.index.lastRefreshMs} ms)`,
      );
    },
    DEADLINE,
  );

  it(
    'sorted first pages, the batch list with progress and a batch page answer without reading every job',
    async () => {
      const figures: string[] = [];
      for (const url of [
        '/jobs?limit=50',
        '/jobs?sort=priority&limit=50',
        '/jobs?sort=state&order=desc&limit=50',
        '/jobs?sort=updated&order=desc&limit=50',
        `/jobs?batch=${batches[0]!.bid}&folder=batch-processing&sort=created&limit=50`,
        '/batches?limit=25',
        '/batches?sort=updated&order=desc&limit=25',
        `/batches/${batches[0]!.bid}?jobs=none`,
      ]) {
        const { body, ms } = await timed<{ items?: unknown[] }>(url);
        if (body.items) expect(body.items.length).toBeGreaterThan(0);
        figures.push(`${url} ${ms} ms`);
      }
      console.log(`on ${COUNT} jobs:\n  ${figures.join('\n  ')}`);
      const page = await timed<{ progress: { waiting: number; inFlight: number } }>(
        `/batches/${batches[0]!.bid}?jobs=none`,
      );
      expect(page.body.progress).toMatchObject({ waiting: batches[0]!.jids.length - MOVED, inFlight: MOVED });
    },
    DEADLINE,
  );
});
