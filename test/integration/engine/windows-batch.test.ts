import { pino } from 'pino';
import { filter, firstValueFrom, timeout, type Observable } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { merrittJobLifecycle } from '../../../machines/index.js';
import { releaseHeldItems } from '../../../src/admin/collections.js';
import { Engine } from '../../../src/engine/engine.js';
import type { LedgerEntry } from '../../../src/engine/ledger.js';
import { startWindowsKeeper, type WindowsKeeper } from '../../../src/engine/windows-keeper.js';
import { createBatch } from '../../../src/queue/batches/create.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { putWindow } from '../../../src/queue/windows/store.js';
import type { WindowTarget } from '../../../src/queue/windows/window.js';
import { createSimulatedSteps } from '../../../src/steps/simulated.js';
import { batchStatus$ } from '../../../src/streams/queue-events.js';
import { exists$ } from '../../../src/streams/data.js';
import { eventually } from '../../support/eventually.js';
import { ledgerCommitted } from '../../support/ledger-committed.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
const DEADLINE_MS = 20_000;
/** Each step takes this long, two at a time per state: a 16-job batch runs for about 4 s. */
const STEP_MS = 250;
/** Steps that began in the moment before the engine saw the hold (its watch's round trip, on a busy machine). */
const SEEN_WITHIN_MS = 1000;
/** How long the ingest window holds: long enough to see nothing start after the engine saw it. */
const HOLD_MS = 2500;

type Timed = LedgerEntry & { t: number };

function until<T>(source: Observable<T>, ok: (value: T) => boolean, ms = DEADLINE_MS): Promise<T> {
  return firstValueFrom(source.pipe(filter(ok), timeout({ first: ms })));
}
const startSoon = (leadMs = 800): number => Math.ceil((Date.now() + leadMs) / 1000) * 1000;
function dailyAt(start: number): string {
  const d = new Date(start);
  return `${d.getUTCSeconds()} ${d.getUTCMinutes()} ${d.getUTCHours()} * * *`;
}

describe('a maintenance window that opens and closes while a batch runs through an engine', () => {
  let ctx: QueueContext;
  let engine: Engine;
  let keeper: WindowsKeeper;
  const ledger: Timed[] = [];

  const statusOf = async (bid: string) => (await loadBatch(ctx, bid)).status;
  const completed = (bid: string) =>
    until(batchStatus$(ctx.zk, bid), (node) => node?.data?.toString().includes('"Completed"') === true);
  function window(name: string, target: WindowTarget, start: number, durationMs: number) {
    return putWindow(ctx, name, { cron: dailyAt(start), duration: durationMs, timezone: 'UTC', target });
  }
  /** Every step that began finished with a commit, none failed, and the batch reported once. */
  async function expectCleanRun(bid: string, jids: readonly string[]) {
    await ledgerCommitted(ledger, bid, { event: 'report.done' });
    const entries = ledger.filter((e) => e.item === bid || jids.includes(e.item));
    const key = (e: LedgerEntry) => `${e.item}/${e.state}/${e.version}`;
    const committed = new Set(entries.filter((e) => e.kind === 'commit').map(key));
    expect(entries.filter((e) => e.kind === 'start' && !committed.has(key(e)))).toEqual([]);
    expect(entries.filter((e) => e.to === 'failed')).toEqual([]);
    expect(
      entries.filter((e) => e.item === bid && e.kind === 'commit' && e.state === 'reporting'),
    ).toHaveLength(1);
  }
  const jobsOf = async (bid: string) =>
    (await ctx.zk.getChildren(`/batches/${bid}/states/batch-completed`)).sort();

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    const simulated = createSimulatedSteps({ stepDelayMs: STEP_MS });
    engine = new Engine(
      {
        queue: queueContext(await chroot.connect()),
        jobSteps: simulated.jobSteps,
        batchSteps: simulated.batchSteps,
        ledger: { record: (entry) => void ledger.push({ ...entry, t: Date.now() }) },
        log: pino({ level: 'silent' }),
      },
      {
        sweepIntervalMs: 0,
        limits: Object.fromEntries(merrittJobLifecycle.servableStates.map((state) => [state, 2])),
      },
    );
    await engine.start();
    const queue = queueContext(await chroot.connect());
    keeper = startWindowsKeeper({
      queue,
      log: pino({ level: 'silent' }),
      releaseHeld: (m) => releaseHeldItems(queue, m),
    });
  });
  afterAll(async () => {
    await keeper?.stop();
    await engine?.stop(1000);
  });

  it('on the ingest queue: steps in flight finish, nothing starts while it holds, every job completes, one report', async () => {
    const { bid } = await createBatch(ctx, {
      profile_name: 'p',
      submitter: 's',
      payload_url: 'sim:16',
      type: 'manifest',
    });
    await eventually(
      () => ledger.filter((e) => e.kind === 'commit' && e.item.startsWith('jid')).length,
      (n) => n >= 4,
      DEADLINE_MS,
      20,
    );
    const start = startSoon();
    await window('weekly', { queue: 'ingest' }, start, HOLD_MS);
    await until(exists$(ctx.zk, '/locks/queue/ingest'), (present) => present);
    const placedAt = Date.now();
    expect(await statusOf(bid)).toBe('processing');
    await until(exists$(ctx.zk, '/locks/queue/ingest'), (present) => !present);
    const liftedAt = Date.now();
    expect(liftedAt).toBeGreaterThanOrEqual(start + HOLD_MS);
    expect(await statusOf(bid)).toBe('processing');
    const startedWhileHeld = ledger.filter(
      (e) => e.kind === 'start' && e.t > placedAt + SEEN_WITHIN_MS && e.t < liftedAt,
    );
    expect(startedWhileHeld).toEqual([]);
    await completed(bid);
    const jids = await jobsOf(bid);
    expect(jids).toHaveLength(16);
    await expectCleanRun(bid, jids);
  });

  it('on a collection: a batch submitted during the window waits held, and runs once the window releases it', async () => {
    const start = startSoon(500);
    await window('dark-hours', { collection: 'dark' }, start, 1000);
    await until(exists$(ctx.zk, '/locks/collections/dark'), (present) => present);
    const { bid } = await createBatch(ctx, {
      profile_name: 'p',
      submitter: 's',
      payload_url: 'sim:4',
      type: 'manifest',
      collection: 'dark',
    });
    await until(batchStatus$(ctx.zk, bid), (node) => node?.data?.toString().includes('"Held"') === true);
    await until(exists$(ctx.zk, '/locks/collections/dark'), (present) => !present);
    await completed(bid);
    const jids = await jobsOf(bid);
    expect(jids).toHaveLength(4);
    await expectCleanRun(bid, jids);
  });
});
