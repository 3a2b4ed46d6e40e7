import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApi } from '../../../src/http/index.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { runCli } from '../../support/run-cli.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { apiDeps, TOKEN } from './api-fixture.js';

const chroot = useZkChroot();
/** The queue's clock, fixed: a Thursday, 15 January 2026, noon in Los Angeles. */
const NOW = new Date('2026-01-15T20:00:00Z');
const auth = { authorization: `Bearer ${TOKEN}` };
const weekly = {
  cron: '0 2 * * 0',
  duration: '2h',
  timezone: 'America/Los_Angeles',
  target: { queue: 'ingest' },
  reason: 'weekly maintenance',
};

describe('maintenance windows through the API and the command line', () => {
  let ctx: QueueContext;
  let api: FastifyInstance;

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect(), () => NOW);
    await ensureQueueTree(ctx.zk);
    api = createHttpApi(await apiDeps(ctx));
  });
  afterAll(async () => {
    await api?.close();
  });

  const call = (
    method: 'GET' | 'PUT' | 'POST' | 'DELETE',
    url: string,
    payload?: object,
    headers: Record<string, string> = auth,
  ) => api.inject({ method, url, headers, ...(payload ? { payload } : {}) });

  it('refuses a window naming the field that is wrong, and without the token', async () => {
    expect((await call('PUT', '/windows/weekly', weekly, {})).statusCode).toBe(401);
    const cases: [object, string, string][] = [
      [{ ...weekly, timezone: 'Pacific/Atlantis' }, 'body.timezone', 'is not an IANA time zone'],
      [{ ...weekly, cron: '0 2 * *' }, 'body.cron', 'is not a cron expression'],
      // A week, less the hour clocks skip in March.
      [{ ...weekly, duration: '8d' }, 'body.duration', '8d is longer than the 167h between two starts'],
      [{ ...weekly, duration: 0 }, 'body.duration', 'must be >= 1'],
      [
        { ...weekly, target: { queue: 'everything' } },
        'body.target.queue',
        'ingest, accessSmall, accessLarge',
      ],
      [{ ...weekly, cron: undefined }, 'body.cron', 'required'],
    ];
    for (const [body, field, message] of cases) {
      const res = await call('PUT', '/windows/weekly', body);
      expect(res.statusCode, field).toBe(400);
      expect(res.json(), field).toMatchObject({ error: 'VALIDATION', field });
      expect(res.json<{ message: string }>().message, field).toContain(message);
    }
    expect((await call('GET', '/windows')).json()).toEqual({ items: [] });
  });

  it('sets a window, lists it with its next occurrence, skips that one, and deletes it', async () => {
    const created = await call('PUT', '/windows/weekly', weekly);
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({
      name: 'weekly',
      version: 0,
      duration: '2h',
      active: false,
      // Sunday 18 January, 02:00 PST.
      next: { start: '2026-01-18T10:00:00.000Z', end: '2026-01-18T12:00:00.000Z' },
    });
    expect((await call('PUT', '/windows/weekly?version=5', weekly)).statusCode).toBe(409);
    expect(
      (await call('PUT', '/windows/weekly?version=0', { ...weekly, duration: 5_400_000 })).statusCode,
    ).toBe(200);
    const listed = (await call('GET', '/windows')).json<{ items: { name: string; duration: string }[] }>();
    expect(listed.items).toMatchObject([{ name: 'weekly', duration: '90m', reason: 'weekly maintenance' }]);
    const metrics = (await call('GET', '/metrics')).body;
    expect(metrics).toContain('mrtq_window_active{window="weekly"} 0');

    const skipped = await call('POST', '/windows/weekly/skip');
    expect(skipped.statusCode).toBe(200);
    expect(skipped.json()).toMatchObject({
      skip: '2026-01-18T10:00:00.000Z',
      skipped: { start: '2026-01-18T10:00:00.000Z' },
      next: { start: '2026-01-25T10:00:00.000Z' },
    });
    // One occurrence is skipped at a time.
    expect((await call('POST', '/windows/weekly/skip')).statusCode).toBe(409);

    expect((await call('DELETE', '/windows/weekly')).json()).toEqual({ name: 'weekly', deleted: true });
    expect((await call('DELETE', '/windows/weekly')).statusCode).toBe(404);
    expect((await call('POST', '/windows/weekly/skip')).statusCode).toBe(404);
  });

  it('`mrtq window set` and `list` write and show the same node; a bad time zone is a usage error', async () => {
    const mrtq = (...args: string[]) => runCli([...args, '--zk', chroot.connectString()]);
    const flags = ['--cron', '30 1 * * 6', '--duration', '3h', '--collection', 'demo', '--reason', 'reindex'];
    const bad = await mrtq('window', 'set', 'saturday', ...flags, '--timezone', 'Europe/Neverland');
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('timezone: "Europe/Neverland" is not an IANA time zone');
    const set = await mrtq('window', 'set', 'saturday', ...flags, '--timezone', 'Europe/Berlin');
    expect(set.stdout).toBe('saturday created\n');
    const listed = await mrtq('window', 'list');
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(/saturday\s+collection demo\s+30 1 \* \* 6 \(Europe\/Berlin\)\s+3h\s+idle/);
    const window = (await call('GET', '/windows/saturday')).json<Record<string, unknown>>();
    expect(window).toMatchObject({
      target: { collection: 'demo' },
      timezone: 'Europe/Berlin',
      reason: 'reindex',
    });
  });
});
