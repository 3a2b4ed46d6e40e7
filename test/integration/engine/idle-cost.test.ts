import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadBatch } from '../../../src/queue/batches/load.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { writeBadItems } from '../../support/chaos/bad-items.js';
import { startEngineProcess, type EngineProcess } from '../../support/engine-process.js';
import { eventually } from '../../support/eventually.js';
import { sleep } from '../../support/private-server.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();

/** CPU seconds (user and system) process `pid` has used, from /proc (Linux clock ticks of 10 ms). */
function cpuSecondsOf(pid: number): number {
  // The command name, in parentheses, may hold spaces: fields are counted after it.
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** The engine's own counter of ZooKeeper requests sent (every operation, every outcome), by operation. */
async function counters(url: string): Promise<{ requests: number; byOperation: Map<string, number> }> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const byOperation = new Map<string, number>();
  for (const line of text.split('\n')) {
    const [name, value] = line.split(' ');
    if (name?.startsWith('mrtq_zk_request_duration_seconds_count{')) {
      const operation = /operation="([^"]+)"/.exec(name)?.[1] ?? '?';
      byOperation.set(operation, (byOperation.get(operation) ?? 0) + Number(value));
    }
  }
  const requests = [...byOperation.values()].reduce((a, b) => a + b, 0);
  return { requests, byOperation };
}

/** Requests per operation between two readings, for the message of a failed expectation. */
function perOperation(before: Map<string, number>, after: Map<string, number>): string {
  return [...after]
    .map(([operation, n]) => `${operation} ${n - (before.get(operation) ?? 0)}`)
    .filter((text) => !text.endsWith(' 0'))
    .join(', ');
}

function urlOf(engine: EngineProcess): string {
  const match = /"url":"(http:\/\/[^"]+)"[^\n]*"msg":"HTTP API listening"/.exec(engine.output());
  if (!match) throw new Error(`no HTTP API in the engine's output:\n${engine.output()}`);
  return match[1]!;
}

describe('an idle engine beside every kind of bad data', () => {
  let ctx: QueueContext;
  let engine: EngineProcess | undefined;

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
  });
  afterAll(async () => {
    engine?.signal('SIGKILL');
    await engine?.exited;
  });

  it('waits on each bad item at next to no cost: no re-read at each change of its folder or its lock', async () => {
    const { valid } = await writeBadItems(ctx);
    // On its defaults: the safety-net sweep every minute, the dashboard's samples every few seconds.
    engine = await startEngineProcess(chroot.connectString(), []);
    const url = urlOf(engine);
    const good = [valid.hugeSubmission.bid, valid.hugeConfiguration.bid, valid.unexpandable.bid];
    const statuses = () => Promise.all(good.map(async (bid) => (await loadBatch(ctx, bid)).status));
    await eventually(statuses, (all) => all.every((s) => s === 'completed' || s === 'failed'), 120_000);
    // Settled: the good work is done, each bad item has been met and looked at again on its
    // backoff (5, 10, 20 s…): measured over the fourth look, as an engine beside bad data that
    // nobody mends spends its days (its looks then every 40 s, up to every 5 min).
    await sleep(25_000);
    // The scrapes of /metrics are outside the CPU figure (each costs more than a second idle).
    const before = await counters(url);
    const cpuBefore = cpuSecondsOf(engine.pid);
    const startedAt = performance.now();
    await sleep(20_000);
    const cpuSeconds = cpuSecondsOf(engine.pid) - cpuBefore;
    const seconds = (performance.now() - startedAt) / 1000;
    const after = await counters(url);
    const requestsPerSecond = (after.requests - before.requests) / seconds;
    const cpuShare = cpuSeconds / seconds;
    // Measured before the fix: ~2,300 requests a second and ~38 % of a core for one malformed
    // status (the engine's own lock, made and deleted at each look, fired the watch of the
    // item's children: a loop through its own writes).
    const spent = perOperation(before.byOperation, after.byOperation);
    console.log(
      `idle beside bad data: ${(cpuShare * 100).toFixed(2)} % of a core, ${requestsPerSecond.toFixed(2)} requests/s (${spent})`,
    );
    expect(requestsPerSecond, `ZooKeeper requests a second, idle (${spent})`).toBeLessThan(10);
    // The goal is under 2 % of a core: alone this measures 0.9-1.3 %, but with the whole suite
    // running beside it on two cores the same engine measured 1.45-2.10 % (timer wake-ups cost
    // more on a busy machine). A timed figure is not asserted at its goal here (the brief: speed
    // goals belong to benchmarks); the bound below still fails the defect it guards against, a
    // loop through the engine's own writes, which cost 38 % of a core.
    expect(cpuShare, 'share of a core, idle').toBeLessThan(0.05);
    expect(engine.proc.exitCode).toBeNull();
  }, 300_000);
});
