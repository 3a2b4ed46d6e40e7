import { beforeAll, describe, expect, it } from 'vitest';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { queueContext } from '../../support/queue-context.js';
import { expandedBatch, objectSpec } from '../../support/queue-fixtures.js';
import { runCli } from '../../support/run-cli.js';
import { useZkChroot } from '../../support/zk-chroot.js';

/**
 * The CLI on a large queue (issue 21, item 5), run alone by `npm run test:large`: 20,000 jobs,
 * or MRTQ_LARGE_QUEUE_JOBS of them (100,000 by hand). At 20,000 `tree --json` used to
 * die with CONNECTION_LOSS (one burst of every read silenced the session's watchdog).
 */
const chroot = useZkChroot();
const COUNT = Number(process.env.MRTQ_LARGE_QUEUE_JOBS ?? 20_000);
const PER_BATCH = 5_000;
const DEADLINE = Math.max(120_000, COUNT * 6);

type Line = { path: string; data: string; ephemeral: boolean };
type Page = { items: { jid: string }[]; total: number; next?: string };

describe(`the CLI on a ${COUNT.toLocaleString('en')}-job queue`, () => {
  let ctx: QueueContext;
  const jids: string[] = [];

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    // Chunked multis (src/queue/jobs/create.ts): thousands of jobs a second.
    for (let from = 0; from < COUNT; from += PER_BATCH) {
      const specs = Array.from({ length: Math.min(PER_BATCH, COUNT - from) }, (_, i) => objectSpec(from + i));
      jids.push(...(await expandedBatch(ctx, specs)).jids);
    }
  }, DEADLINE);

  const cli = (...args: string[]) => runCli([...args, '--zk', chroot.connectString()], {}, DEADLINE);

  it(
    '`tree /jobs --json` streams every node, depth first, as valid JSON lines',
    async () => {
      const run = await cli('tree', '/jobs', '--json');
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      const lines = run.stdout
        .trimEnd()
        .split('\n')
        .map((line) => JSON.parse(line) as Line);
      const folders = await ctx.zk.getChildren('/jobs/states');
      const refs = (await Promise.all(folders.map((f) => ctx.zk.getChildren(`/jobs/states/${f}`)))).flat();
      const perJob = (await ctx.zk.getChildren(`/jobs/${jids[0]}`)).length;
      // /jobs, each job and its nodes, /jobs/states, its folders and their refs.
      expect(lines).toHaveLength(1 + COUNT * (1 + perJob) + 1 + folders.length + refs.length);
      expect(lines[0]).toEqual({ path: '/jobs', data: '', ephemeral: false });
      // Depth first: a node's parent came before it, and no node twice.
      const seen = new Set<string>();
      const outOfOrder = lines.filter(({ path }) => {
        const wrong = seen.has(path) || (path !== '/jobs' && !seen.has(path.slice(0, path.lastIndexOf('/'))));
        seen.add(path);
        return wrong;
      });
      expect(outOfOrder).toEqual([]);
      const status = lines.find((line) => line.path === `/jobs/${jids[0]}/status`);
      expect(JSON.parse(status!.data)).toMatchObject({ status: 'Pending' });
    },
    DEADLINE,
  );

  it(
    '`jobs --limit --after` pages through every job once, newest first; `--ndjson` streams them all',
    async () => {
      const limit = Math.ceil(COUNT / 2) + 1;
      const listed: string[] = [];
      let after: string | undefined;
      for (let pages = 0; pages < 5; pages += 1) {
        const run = await cli(
          'jobs',
          '--json',
          '--limit',
          String(limit),
          ...(after ? ['--after', after] : []),
        );
        expect(run.code).toBe(0);
        const page = JSON.parse(run.stdout) as Page;
        expect(page.total).toBe(COUNT);
        listed.push(...page.items.map((job) => job.jid));
        after = page.next;
        if (!after) break;
        expect(after).toBe(listed.at(-1));
      }
      expect(listed).toEqual([...jids].sort().reverse());

      // In a state, pages follow the refs' priority order.
      const pending = await cli('jobs', '--state', 'pending', '--json', '--limit', '2', '--after', jids[1]!);
      expect((JSON.parse(pending.stdout) as Page).items.map((job) => job.jid)).toEqual([jids[2], jids[3]]);

      const stream = await cli('jobs', '--ndjson');
      expect(stream.code).toBe(0);
      const streamed = stream.stdout
        .trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as { jid: string }).jid);
      expect(streamed).toEqual(listed);
    },
    DEADLINE,
  );

  it(
    '`doctor` checks the whole queue and finds nothing wrong',
    async () => {
      const run = await cli('doctor', '--json');
      expect(run.stderr).toBe('');
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({
        ok: true,
        checked: { jobs: COUNT, batches: Math.ceil(COUNT / PER_BATCH) },
      });
    },
    DEADLINE,
  );
});
