import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { doctor } from '../../../src/doctor/doctor.js';
import { startService, type Service } from '../../../src/service.js';
import type { ZkClient } from '../../../src/zk/index.js';
import { freePort } from '../../../src/zk-server/free-port.js';
import { eventually } from '../../support/eventually.js';
import { queueContext } from '../../support/queue-context.js';
import { runCli } from '../../support/run-cli.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { capturingLogger, merrittConfig, type LogLine } from '../../support/merritt-service.js';

// merritt-protocols.md "The big picture": in a Merritt deployment Merritt's ingest may keep
// writing batches of its own (payload on its disk). The engine leaves them pending; that is
// not a problem, and the logs, doctor and /engines say what is left to whom.

const chroot = useZkChroot();
const JAVA_TIME = '2026-11-21 09:34:25 +0000';
const REPO_PROFILE = join(import.meta.dirname, '..', '..', '..', 'profiles', 'merritt_demo_content');

/** A batch as mrt-ingest's HandlerSubmit creates it through mrt-zk's Batch.createBatch, node by node. */
async function merrittCreatesBatch(zk: ZkClient, filename: string): Promise<string> {
  const uuid = `bid-${randomUUID()}`;
  const bid = (await zk.create('/batches/bid', null, 'persistent_sequential')).slice('/batches/'.length);
  await zk.create(`/batch-uuids/${uuid}`, bid);
  const submission = { batchID: uuid, profile: 'merritt_demo_content', type: 'container', filename };
  await zk.create(`/batches/${bid}/submission`, JSON.stringify(submission));
  await zk.create(
    `/batches/${bid}/status`,
    JSON.stringify({ status: 'Pending', last_modified: JAVA_TIME, message: '' }),
  );
  return bid;
}

describe('batches left for Merritt’s ingest, the deployment as /engines and the start-up line say it, profile warnings', () => {
  let dir: string;
  let service: Service;
  let zk: ZkClient;
  const lines: LogLine[] = [];
  const about = (bid: string): LogLine[] => lines.filter((l) => l.batchId === bid || l.item === bid);
  /** The engine's getData requests so far, from its own /metrics. */
  const getDataCount = async (): Promise<number> => {
    const text = await (await fetch(`${service.httpUrl}/metrics`)).text();
    return text
      .split('\n')
      .filter(
        (l) => l.startsWith('mrtq_zk_request_duration_seconds_count{') && l.includes('operation="getData"'),
      )
      .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mrtq-left-pending-'));
    mkdirSync(join(dir, 'profiles'));
    // A Merritt profile whose Priority is above 99 and whose NotificationFormat is unknown.
    const hot = readFileSync(REPO_PROFILE, 'utf8')
      .replace('ProfileID: merritt_demo_content', 'ProfileID: merritt_hot')
      .replace('Priority: 05', 'Priority: 150')
      .replace('NotificationFormat: json', 'NotificationFormat: yaml');
    writeFileSync(join(dir, 'profiles', 'merritt_hot'), hot);
    const port = await freePort();
    const config = merrittConfig({
      connectString: chroot.connectString(),
      dataDir: dir,
      profilesDir: join(dir, 'profiles'),
      publicUrl: `http://127.0.0.1:${port}`,
    });
    // A short sweep: the batch is looked at again and again, and must be logged once.
    service = await startService(
      config,
      { httpPort: port, steps: 'simulated', sweepIntervalMs: 200 },
      capturingLogger(lines, 'debug'),
    );
    zk = await chroot.connect();
  });

  afterAll(async () => {
    await service?.stop(2000);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the start-up line and GET /engines name the deployment and the states left to Merritt', async () => {
    const startLine = lines.find((l) => l.deployment === 'merritt');
    expect(startLine?.msg).toBe(
      "Merritt deployment: states left to Merritt's services: storing (storage), recording (inventory); " +
        'access queues left to Merritt: small (storage), large (storage); served here: none',
    );
    const engines = (await (await fetch(`${service.httpUrl}/engines`)).json()) as {
      items: Record<string, unknown>[];
    };
    expect(engines.items).toHaveLength(1);
    expect(engines.items[0]).toMatchObject({
      deployment: 'merritt',
      leftToMerritt: [
        { state: 'storing', service: 'storage' },
        { state: 'recording', service: 'inventory' },
      ],
    });
    expect(engines.items[0]!.states).not.toContain('storing');
  });

  it('profile load warnings (Priority clamped, unknown NotificationFormat) reach the log', () => {
    const warnings = lines.filter((l) => l.level === 40 && l.msg.startsWith('profile: '));
    expect(warnings.map((l) => l.msg).join('\n')).toMatch(/merritt_hot: Priority: .*99/);
    expect(warnings.map((l) => l.msg).join('\n')).toMatch(/merritt_hot: NotificationFormat: .*yaml/);
  });

  it('a pending batch left for Merritt’s ingest is one info line, no error; doctor tells it as a note and exits 0', async () => {
    const first = await merrittCreatesBatch(zk, 'first.zip');
    await eventually(
      () => about(first),
      (found) => found.length > 0,
      20_000,
    );
    // Looked at again at every sweep (200 ms) meanwhile, and when its message was written.
    const second = await merrittCreatesBatch(zk, 'second.zip');
    await eventually(
      () => about(second),
      (found) => found.length > 0,
      20_000,
    );
    // Several sweeps later (each reads every batch's status, and looks at both batches again).
    const reads = await getDataCount();
    await eventually(getDataCount, (n) => n >= reads + 40, 20_000, 100);
    for (const bid of [first, second]) {
      const logged = about(bid).filter((l) => l.level >= 30);
      expect(logged.map((l) => l.msg)).toEqual([
        `pending batch ${bid} left for the service that can take it`,
      ]);
      expect(logged.filter((l) => l.level >= 50)).toEqual([]);
      expect(String(logged.find((l) => l.msg.startsWith('pending batch'))?.reason)).toMatch(
        /^left pending for Merritt's ingest: .*no payload_url/,
      );
    }

    const report = await doctor(queueContext(zk));
    expect(report.ok).toBe(true);
    expect(report.problems).toEqual([]);
    expect(report.notes.map((n) => [n.code, n.item])).toEqual([
      ['BATCH_LEFT_PENDING', first],
      ['BATCH_LEFT_PENDING', second],
    ]);
    expect(report.notes[0]!.message).toContain('"first.zip"');
    const cli = await runCli(['doctor', '--zk', chroot.connectString()], { MRTQ_DATA_DIR: dir });
    expect(cli.code).toBe(0);
    expect(cli.stdout).toContain(
      `note BATCH_LEFT_PENDING ${first}\n  batch ${first} is left pending for Merritt's ingest`,
    );
    expect(cli.stderr).toContain('no problems found');
  });
});
