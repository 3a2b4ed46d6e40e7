import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBatch } from '../../../src/queue/batches/create.js';
import { loadBatch } from '../../../src/queue/batches/load.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { snapshot, writeBadItems } from '../../support/chaos/bad-items.js';
import { EngineCluster } from '../../support/chaos/cluster.js';
import { chaosProfile } from '../../support/chaos/profile.js';
import { finishScenario } from '../../support/chaos/scenario.js';
import { logLines } from '../../support/chaos/zk-ensemble.js';
import type { EngineProcess } from '../../support/engine-process.js';
import { sleep } from '../../support/private-server.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { waitUntil } from '../../support/chaos/ledger-steps.js';

const chroot = useZkChroot();
const profile = chaosProfile();
/** The cluster's safety-net sweep: the only thing that looks at a bad item again when nothing changes. */
const SWEEP_MS = 5000;

/** Log lines (warnings and errors) of every engine that mention a bad item, as JSON text. */
function linesOf(engines: readonly EngineProcess[], item: string, from = 0, to = Infinity): string[] {
  return engines
    .flatMap(logLines)
    .filter((l) => Number(l.level) >= 40 && Number(l.time) >= from && Number(l.time) < to)
    .map((l) => JSON.stringify(l))
    .filter((text) => text.includes(item));
}

describe('chaos 6, bad data: another tool writes malformed, half-written, dangling and huge items while engines work', () => {
  let ctx: QueueContext;
  let dir: string;
  let cluster: EngineCluster | undefined;

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    dir = mkdtempSync(join(tmpdir(), 'chaos-bad-data-'));
  });
  afterAll(() => {
    cluster?.killAll();
    rmSync(dir, { recursive: true, force: true });
  });

  it(
    'isolates each bad item without a hot loop, completes every good job, and keeps running',
    async () => {
      const startedAt = Date.now();
      const jobs = profile.size(100, 500);
      const engines = 2;
      cluster = new EngineCluster(
        () => chroot.connectString(),
        join(dir, 'ledger.jsonl'),
        ['--step-delay', '10', '--sweep', String(SWEEP_MS)],
        { ZK_SESSION_TIMEOUT_MS: '4000' },
      );
      await cluster.start(engines);
      const processes: EngineProcess[] = [...cluster.running];
      const good = await createBatch(ctx, {
        profile_name: 'p',
        submitter: 'chaos',
        payload_url: `sim:${jobs}`,
        type: 'manifest',
      });
      // Mid-run: the good batch is expanded and its jobs are moving.
      await waitUntil('good jobs moving', 30_000, () =>
        Promise.resolve(cluster!.ledger().filter((e) => e.kind === 'commit').length > jobs),
      );
      const finished = async (bid: string) =>
        ['completed', 'failed'].includes((await loadBatch(ctx, bid)).status);
      // Checked as the bad items start to arrive: writing them all (two of 900 KB) may take longer
      // than the rest of a small good batch at full speed.
      expect(await finished(good.bid), 'the good batch still running when the bad items arrive').toBe(false);
      const { bad, valid } = await writeBadItems(ctx);
      const written = await snapshot(
        ctx,
        bad.flatMap((b) => b.nodes),
      );

      const runs = [good.bid, valid.hugeSubmission.bid, valid.hugeConfiguration.bid, valid.unexpandable.bid];
      await waitUntil('every good batch finished', profile.size(60_000, 300_000), async () => {
        for (const bid of runs) if (!(await finished(bid))) return false;
        return true;
      });
      // The unexpandable batch fails with a message the depositor can act on.
      const unexpandable = await loadBatch(ctx, valid.unexpandable.bid);
      expect(unexpandable.status).toBe('failed');
      expect(unexpandable.message).toContain(
        'simulated steps expand only "sim:<jobs>" payloads, not "sim:lots"',
      );

      // Quiet now: only the sweep looks at the bad items again, and a reason already logged is
      // not logged again (once per change: src/engine/problem-log.ts). At most one line per
      // engine and item in the quiet: an item missing a node is first logged at debug and
      // reported once it stays so. Before, every look logged (thousands in a hot loop, 1,300 a
      // minute for 40 stuck jobs). Lines are counted by the time they were logged.
      const quietFrom = Date.now();
      const quietMs = profile.size(2 * SWEEP_MS + 1000, 6 * SWEEP_MS + 1000);
      await sleep(quietMs + 500);
      const quiet = bad.map((b) => ({
        item: b.item,
        what: b.what,
        lines: linesOf(processes, b.item, quietFrom, quietFrom + quietMs).length,
      }));
      const hot = quiet.filter((b) => b.lines > engines);
      expect(hot, `log lines in ${quietMs} ms of quiet, per bad item`).toEqual([]);
      for (const b of bad) {
        const lines = linesOf(processes, b.item);
        // Each bad item a consumer reads is named in the logs as skipped, with the node that is
        // wrong; the others are never looked at. Huge data is never copied into a log line.
        if (b.seenByEngine) {
          expect(
            lines.filter((l) => l.includes('cannot be used; skipped')).length,
            `${b.item} (${b.what})`,
          ).toBeGreaterThan(0);
          expect(
            lines.every((l) => l.length < 8192),
            `${b.item} (${b.what}): log lines under 8 KB`,
          ).toBe(true);
        } else expect(lines, `${b.item} (${b.what}) logged`).toEqual([]);
      }
      // Every bad item is exactly as the tool wrote it.
      expect(await snapshot(ctx, [...written.keys()])).toEqual(written);

      expect(cluster.running.map((p) => p.pid)).toEqual(processes.map((p) => p.pid));
      const exits = await cluster.stopAll();
      expect(exits).toEqual(processes.map(() => 0));
      const logged = bad.map((b) => linesOf(processes, b.item).length);
      await finishScenario({
        scenario: 'bad-data',
        profile,
        ctx,
        batches: [
          { bid: good.bid, jobs },
          { bid: valid.hugeSubmission.bid, jobs: valid.hugeSubmission.jobs },
          { bid: valid.hugeConfiguration.bid, jobs: valid.hugeConfiguration.jobs },
        ],
        ledger: cluster.ledger(),
        counts: {
          engines,
          bad_items: bad.length,
          huge_items: 2,
          bad_log_lines_max: Math.max(...logged),
          quiet_lines_max: Math.max(...quiet.map((b) => b.lines)),
          quiet_seconds: quietMs / 1000,
          bad_log_lines_total: logged.reduce((a, b) => a + b, 0),
        },
        startedAt,
        expectedDoctorItems: bad.map((b) => b.item),
      });
    },
    profile.size(120_000, 600_000),
  );
});
