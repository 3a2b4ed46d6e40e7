import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadAccess } from '../../../src/queue/access/requests.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { startService, type Service, type ServiceOptions } from '../../../src/service.js';
import type { ZkClient } from '../../../src/zk/index.js';
import { freePort } from '../../../src/zk-server/free-port.js';
import { eventually } from '../../support/eventually.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { capturingLogger, merrittConfig, type LogLine } from '../../support/merritt-service.js';

// merritt-protocols.md §7: in a Merritt deployment mrt-store queues access (assembly) requests and
// its own Consumer takes them. An engine serving the access queues there took each one and failed
// it ("the embedded store has no token status"). In Merritt mode the access queues are now left to
// Merritt's storage service unless `mrtq serve --access` opts in.

const chroot = useZkChroot();
/** A request as mrt-store queues it through mrt-zk's Access.createAssembly: id node, token, status. */
async function storeQueuesAccess(zk: ZkClient, queue: 'small' | 'large'): Promise<string> {
  const created = await zk.create(`/access/${queue}/qid`, null, 'persistent_sequential');
  const token = {
    status: 201,
    token: crypto.randomUUID(),
    'cloud-content-byte': 1234,
    'delivery-node': 7777,
  };
  await zk.create(`${created}/token`, JSON.stringify(token));
  await zk.create(
    `${created}/status`,
    JSON.stringify({ status: 'Pending', last_modified: '2026-11-21 09:34:25 +0000', message: '' }),
  );
  return created.slice(created.lastIndexOf('/') + 1);
}

describe("access queues in a Merritt deployment are Merritt's storage service's (merritt-protocols.md §7)", () => {
  let dir: string;
  let zk: ZkClient;
  let service: Service | undefined;
  let lines: LogLine[] = [];

  async function start(options: Pick<ServiceOptions, 'accessQueues'>): Promise<Service> {
    lines = [];
    const port = await freePort();
    const config = merrittConfig({
      connectString: chroot.connectString(),
      dataDir: dir,
      publicUrl: `http://127.0.0.1:${port}`,
    });
    service = await startService(
      config,
      { ...options, httpPort: port, steps: 'ingest', sweepIntervalMs: 200 },
      capturingLogger(lines, 'info'),
    );
    return service;
  }

  const engines = async (svc: Service) =>
    ((await (await fetch(`${svc.httpUrl}/engines`)).json()) as { items: Record<string, unknown>[] }).items;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'mrtq-access-left-'));
    zk = await chroot.connect();
    await ensureQueueTree(zk);
  });
  afterEach(async () => {
    await service?.stop(2000);
    service = undefined;
  });
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('by default a request mrt-store queued is left Pending and unlocked; the start-up line and /engines say so', async () => {
    const svc = await start({});
    const startLine = lines.find((l) => l.deployment === 'merritt');
    expect(startLine?.msg).toBe(
      "Merritt deployment: states left to Merritt's services: storing (storage), recording (inventory); " +
        'access queues left to Merritt: small (storage), large (storage); served here: none',
    );
    expect((await engines(svc))[0]).toMatchObject({
      accessQueues: [],
      accessLeftToMerritt: [
        { queue: 'small', service: 'storage' },
        { queue: 'large', service: 'storage' },
      ],
    });
    const small = await storeQueuesAccess(zk, 'small');
    const large = await storeQueuesAccess(zk, 'large');
    // Many sweeps (200 ms each) later, each re-reading every folder this engine serves.
    const reads = async (): Promise<number> => {
      const text = await (await fetch(`${svc.httpUrl}/metrics`)).text();
      return text
        .split('\n')
        .filter(
          (l) =>
            l.startsWith('mrtq_zk_request_duration_seconds_count{') && l.includes('operation="getChildren"'),
        )
        .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(' ') + 1)), 0);
    };
    const before = await reads();
    await eventually(reads, (n) => n >= before + 30, 20_000, 100);
    const ctx = queueContext(zk);
    for (const [queue, qid] of [
      ['small', small],
      ['large', large],
    ] as const) {
      expect((await loadAccess(ctx, queue, qid)).status).toBe('pending');
      expect(await zk.exists(`/access/${queue}/${qid}/lock`)).toBeUndefined();
    }
  }, 60_000);

  it('`mrtq serve --access small` opts in: the small queue is served here, the large one stays Merritt’s', async () => {
    const ctx = queueContext(zk);
    const small = await storeQueuesAccess(zk, 'small');
    const large = await storeQueuesAccess(zk, 'large');
    const svc = await start({ accessQueues: ['small'] });
    expect(lines.find((l) => l.deployment === 'merritt')?.msg).toMatch(
      /; access queues left to Merritt: large \(storage\); served here: small$/,
    );
    expect((await engines(svc))[0]).toMatchObject({
      accessQueues: ['small'],
      accessLeftToMerritt: [{ queue: 'large', service: 'storage' }],
    });
    // Taken: it leaves Pending (the embedded store has no status for mrt-store's token, so it fails).
    const taken = await eventually(
      () => loadAccess(ctx, 'small', small),
      (r) => r.status !== 'pending',
      30_000,
    );
    expect(taken.status).not.toBe('pending');
    expect((await loadAccess(ctx, 'large', large)).status).toBe('pending');
  }, 60_000);
});
