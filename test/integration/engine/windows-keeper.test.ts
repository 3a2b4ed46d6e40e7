import { pino, type Logger } from 'pino';
import { filter, firstValueFrom, timeout, type Observable } from 'rxjs';
import { afterAll, afterEach, beforeAll, describe, it } from 'vitest';
import { releaseHeldItems } from '../../../src/admin/collections.js';
import { startWindowsKeeper, type WindowsKeeper } from '../../../src/engine/windows-keeper.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import { pauseQueue, resumeQueue } from '../../../src/queue/locks/queue-pause.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { encodeJson } from '../../../src/queue/tree/wire.js';
import { getWindow, putWindow, skipWindow, windowPath } from '../../../src/queue/windows/store.js';
import type { WindowTarget } from '../../../src/queue/windows/window.js';
import { data$, exists$, type NodeValue } from '../../../src/streams/data.js';
import { eventually } from '../../support/eventually.js';
import { queueContext } from '../../support/queue-context.js';
import { driveBatch } from '../../support/queue-fixtures.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
/** A generous deadline for what should take a second or two. */
const DEADLINE_MS = 15_000;

/** A logger whose lines are kept, to count what the keepers said. */
function capturedLog(): { log: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  const log = pino(
    { level: 'debug' },
    { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) },
  );
  return { log, lines };
}

/** The first value of `source` that passes `ok` (an event, not a poll), within `ms`. */
function until<T>(source: Observable<T>, ok: (value: T) => boolean, ms = DEADLINE_MS): Promise<T> {
  return firstValueFrom(source.pipe(filter(ok), timeout({ first: ms })));
}

/** A whole second at least `leadMs` ahead: the start of a window that opens soon. */
const startSoon = (leadMs = 1200): number => Math.ceil((Date.now() + leadMs) / 1000) * 1000;
/** A 6-field cron (seconds first) firing daily at the second of `start`, read in UTC. */
function dailyAt(start: number): string {
  const d = new Date(start);
  return `${d.getUTCSeconds()} ${d.getUTCMinutes()} ${d.getUTCHours()} * * *`;
}
const iso = (ms: number): string => new Date(ms).toISOString();
const json = (node: NodeValue): unknown =>
  node?.data && node.data.length > 0 ? JSON.parse(node.data.toString('utf8')) : undefined;

describe('maintenance windows kept by the engines (real ZooKeeper)', () => {
  let ctx: QueueContext;
  const keepers: WindowsKeeper[] = [];
  const { log, lines } = capturedLog();
  const said = (window: string, msg: string): number =>
    lines.filter((l) => l.window === window && l.msg === msg).length;
  /**
   * Said once by the fleet. A keeper whose request lost its answer in a busy moment (ZooKeeper
   * slow to answer its watchdog) tries again and finds the work done, saying nothing: then at most
   * once. The window node's version is the proof that it was done once.
   */
  const saidOnce = (window: string, msg: string): boolean => {
    const count = said(window, msg);
    const answerLost = lines.some((l) => l.msg === 'maintenance windows not applied; trying again');
    return answerLost ? count <= 1 : count === 1;
  };

  async function startKeeper(): Promise<WindowsKeeper> {
    const queue = queueContext(await chroot.connect());
    const keeper = startWindowsKeeper({ queue, log, releaseHeld: (m) => releaseHeldItems(queue, m) });
    keepers.push(keeper);
    return keeper;
  }
  /** A window of `durationMs` starting at `start`, holding `target`. */
  function open(name: string, target: WindowTarget, start: number, durationMs: number) {
    return putWindow(ctx, name, {
      cron: dailyAt(start),
      duration: durationMs,
      timezone: 'UTC',
      target,
      reason: `test ${name}`,
    });
  }
  /** Resolves once `end` has passed and no keeper sees `name` in force: each has acted on its end. */
  const over = (name: string, end: number) =>
    eventually(
      () => Date.now() >= end && keepers.every((k) => !k.inForce().has(name)),
      (done) => done,
      DEADLINE_MS,
    );

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    // Two engines' keepers, as a fleet of two would run.
    await startKeeper();
    await startKeeper();
  });
  afterAll(async () => {
    await Promise.all(keepers.map((k) => k.stop()));
  });
  afterEach(({ task }) => {
    // What the keepers said is the evidence when this fails on a loaded machine.
    if (task.result?.state === 'fail') console.error(lines.map((l) => JSON.stringify(l)).join('\n'));
  });

  describe.concurrent('each on its own target', () => {
    it('places the ingest hold, naming the window, at its start, and lifts it at its end', async ({
      expect,
    }) => {
      const start = startSoon();
      const end = start + 1500;
      await open('nightly', { queue: 'ingest' }, start, 1500);
      const held = await until(data$(ctx.zk, '/locks/queue/ingest'), (node) => node !== undefined);
      expect(Date.now()).toBeGreaterThanOrEqual(start);
      expect(json(held)).toEqual({ window: 'nightly', occurrence: iso(start), until: iso(end) });
      expect((await getWindow(ctx, 'nightly')).window?.applied).toBe(iso(start));
      await until(exists$(ctx.zk, '/locks/queue/ingest'), (present) => !present);
      expect(Date.now()).toBeGreaterThanOrEqual(end);
      await over('nightly', end);
      // Two keepers: one placed the hold (one write of `applied`), one lifted it.
      expect((await ctx.zk.getData(windowPath('nightly'))).stat.version).toBe(1);
      expect(saidOnce('nightly', 'maintenance window opened: hold placed')).toBe(true);
      expect(saidOnce('nightly', 'maintenance window closed: hold lifted')).toBe(true);
    });

    it("leaves an operator's hold as it is, during the window and after it", async ({ expect }) => {
      await pauseQueue(ctx, 'accessSmall');
      const start = startSoon();
      await open('manual-first', { queue: 'accessSmall' }, start, 1000);
      await until(
        data$(ctx.zk, windowPath('manual-first')),
        (n) => (json(n) as { applied?: string })?.applied === iso(start),
      );
      await over('manual-first', start + 1000);
      const hold = await ctx.zk.getData('/locks/queue/accessSmall');
      expect(hold.data?.length ?? 0).toBe(0);
      expect((await ctx.zk.getData(windowPath('manual-first'))).stat.version).toBe(1);
      const leftAsItIs = 'maintenance window opened: already held, that hold is left as it is';
      expect(saidOnce('manual-first', leftAsItIs)).toBe(true);
      expect(said('manual-first', 'maintenance window closed: hold lifted')).toBe(0);
      await resumeQueue(ctx, 'accessSmall');
    });

    it('is applied once by two keepers, and its end releases what the collection hold kept', async ({
      expect,
    }) => {
      const { bid } = await createBatch(ctx, {
        profile_name: 'p',
        submitter: 's',
        payload_url: 'sim:1',
        type: 'manifest',
        collection: 'dark',
      });
      const start = startSoon();
      await open('dark-nights', { collection: 'dark' }, start, 1500);
      await until(exists$(ctx.zk, '/locks/collections/dark'), (present) => present);
      // What the engine's pending consumer does with a batch of a held collection.
      await driveBatch(ctx, bid, { type: 'batch.held' });
      expect((await loadBatch(ctx, bid)).status).toBe('held');
      await until(exists$(ctx.zk, '/locks/collections/dark'), (present) => !present);
      const node = await until(data$(ctx.zk, windowPath('dark-nights')), (n) => {
        const value = json(n) as { applied?: string; releasing?: string };
        return value.applied === iso(start) && value.releasing === undefined;
      });
      // Written three times after its creation: applied once, then marked releasing and cleared.
      expect(node?.stat.version).toBe(3);
      expect((await loadBatch(ctx, bid)).status).toBe('pending');
      expect(saidOnce('dark-nights', 'maintenance window opened: hold placed')).toBe(true);
      expect(saidOnce('dark-nights', 'maintenance window closed: hold lifted')).toBe(true);
    });

    it('lets an operator who resumes during the window win: the hold is not placed again', async ({
      expect,
    }) => {
      const start = startSoon();
      await open('resumed', { queue: 'accessLarge' }, start, 2500);
      await until(exists$(ctx.zk, '/locks/queue/accessLarge'), (present) => present);
      await resumeQueue(ctx, 'accessLarge');
      const seen: boolean[] = [];
      const watching = exists$(ctx.zk, '/locks/queue/accessLarge').subscribe((present) => seen.push(present));
      // A change to the window makes every keeper look again while it is in force.
      await putWindow(ctx, 'resumed', {
        cron: dailyAt(start),
        duration: 2500,
        timezone: 'UTC',
        target: { queue: 'accessLarge' },
        reason: 'changed while in force',
      });
      await over('resumed', start + 2500);
      watching.unsubscribe();
      expect(seen).not.toContain(true);
      expect((await getWindow(ctx, 'resumed')).window?.applied).toBe(iso(start));
    });

    it('lifts the hold at once when the occurrence in force is skipped', async ({ expect }) => {
      const start = startSoon();
      await open('skipped', { collection: 'skipper' }, start, 5000);
      await until(exists$(ctx.zk, '/locks/collections/skipper'), (present) => present);
      const { skipped } = await skipWindow(ctx, 'skipped');
      expect(skipped.start.getTime()).toBe(start);
      await until(exists$(ctx.zk, '/locks/collections/skipper'), (present) => !present);
      expect(Date.now()).toBeLessThan(start + 5000);
      expect(saidOnce('skipped', 'maintenance window closed: hold lifted')).toBe(true);
    });

    it('lifts, at start, holds left by a window whose occurrence is over or which is gone, and no other', async ({
      expect,
    }) => {
      const start = Math.floor((Date.now() - 3_600_000) / 1000) * 1000;
      await open('gone-by', { collection: 'left-behind' }, start, 600_000);
      const leftover = (window: string) =>
        encodeJson({ window, occurrence: iso(start), until: iso(start + 600_000) });
      await ctx.zk.create('/locks/collections/left-behind', leftover('gone-by'));
      await ctx.zk.create('/locks/collections/orphaned', leftover('deleted-long-ago'));
      await ctx.zk.create('/locks/collections/by-hand');
      const late = await startKeeper();
      await until(exists$(ctx.zk, '/locks/collections/left-behind'), (present) => !present);
      await until(exists$(ctx.zk, '/locks/collections/orphaned'), (present) => !present);
      expect(await ctx.zk.exists('/locks/collections/by-hand')).toBeDefined();
      keepers.splice(keepers.indexOf(late), 1);
      await late.stop();
    });
  });
});
