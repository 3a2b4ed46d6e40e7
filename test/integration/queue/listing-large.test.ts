import { beforeAll, describe, expect, it } from 'vitest';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { listJobs } from '../../../src/views/listing/listing.js';
import { childrenCached } from '../../../src/views/listing/scan.js';
import { JOBS, jobPath } from '../../../src/queue/tree/paths.js';
import type { Op } from '../../../src/zk/index.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
const jid = (n: number): string => `jid${String(n).padStart(10, '0')}`;
// Above the size from which a folder's names are kept between listings.
const COUNT = 20_050;
let ctx: QueueContext;

beforeAll(async () => {
  const zk = await chroot.connect();
  ctx = queueContext(zk);
  await zk.mkdirp(JOBS);
  // Id nodes only (no data): the listing shows them as invalid jobs, which is all a page needs here.
  const ids = Array.from({ length: COUNT }, (_, i) => jid(i * 3));
  for (let i = 0; i < ids.length; i += 1000) {
    const ops: Op[] = ids.slice(i, i + 1000).map((id) => ({ op: 'create', path: jobPath(id) }));
    await zk.multi(ops);
  }
}, 180_000);

const newestFirst = (): string[] =>
  Array.from({ length: COUNT }, (_, i) => jid(i * 3))
    .sort()
    .reverse();

describe('a page of all jobs, newest first, at 20,000 jobs and more (issue 22: selected, not sorted)', () => {
  it('pages by cursor and by offset exactly as sorting every id would, with the total', async () => {
    const expected = newestFirst();
    const first = await listJobs(ctx, {}, { offset: 0, limit: 50 });
    expect(first.total).toBe(COUNT);
    expect(first.items.map((item) => item.jid)).toEqual(expected.slice(0, 50));
    expect(first.next).toBe(expected[49]);

    const second = await listJobs(ctx, {}, { offset: 0, limit: 50, after: first.next });
    expect(second.items.map((item) => item.jid)).toEqual(expected.slice(50, 100));
    expect(second.total).toBe(COUNT);

    const skipped = await listJobs(ctx, {}, { offset: 7, limit: 5, after: expected[99] });
    expect(skipped.items.map((item) => item.jid)).toEqual(expected.slice(107, 112));

    // After an id that is not there (deleted meanwhile): the page goes on with the older ones.
    const gone = await listJobs(ctx, {}, { offset: 0, limit: 3, after: jid(3 * 10_000 + 1) });
    expect(gone.items.map((item) => item.jid)).toEqual([jid(30_000), jid(29_997), jid(29_994)]);

    const last = await listJobs(ctx, {}, { offset: 0, limit: 50, after: expected[COUNT - 20] });
    expect(last.items.map((item) => item.jid)).toEqual(expected.slice(COUNT - 19));
    expect(last.next).toBeUndefined();
  });

  it('keeps the ids between two listings while no job is added or removed, and reads them again after', async () => {
    const once = await childrenCached(ctx, JOBS);
    expect(await childrenCached(ctx, JOBS)).toBe(once);

    const newest = jid(10 * COUNT);
    await ctx.zk.create(jobPath(newest));
    try {
      const after = await childrenCached(ctx, JOBS);
      expect(after).not.toBe(once);
      expect(after).toHaveLength(COUNT + 1);
      const page = await listJobs(ctx, {}, { offset: 0, limit: 2 });
      expect(page.total).toBe(COUNT + 1);
      expect(page.items.map((item) => item.jid)).toEqual([newest, newestFirst()[0]]);
    } finally {
      await ctx.zk.delete(jobPath(newest));
    }
    const page = await listJobs(ctx, {}, { offset: 0, limit: 1 });
    expect(page.total).toBe(COUNT);
    expect(page.items.map((item) => item.jid)).toEqual([newestFirst()[0]]);
  });
});
