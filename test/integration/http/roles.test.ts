import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Role } from '../../../src/auth/actor.js';
import { hashToken, newToken } from '../../../src/auth/token-hash.js';
import { startHttpApi, type RunningHttpApi } from '../../../src/http/index.js';
import { loadJob } from '../../../src/queue/jobs/load.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { queueContext } from '../../support/queue-context.js';
import { expandedBatch, objectSpec } from '../../support/queue-fixtures.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { apiDeps, TOKEN } from './api-fixture.js';

const chroot = useZkChroot();

/** The credentials of the file: name → role and collections; each gets a token of its own. */
const PEOPLE: Record<string, { role: Role; collections?: string[] }> = {
  reader: { role: 'read' },
  depositor: { role: 'submit' },
  op: { role: 'operator' },
  boss: { role: 'admin' },
  'op-demo': { role: 'operator', collections: ['demo'] },
  'boss-demo': { role: 'admin', collections: ['demo'] },
};
const tokens = Object.fromEntries(Object.keys(PEOPLE).map((name) => [name, newToken()]));

interface Answer {
  status: number;
  body: { error?: string; message?: string } & Record<string, unknown>;
}

describe('roles and named credentials on the API (a real server over a real ZooKeeper)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mrtq-roles-'));
  const logs: string[] = [];
  let ctx: QueueContext;
  let api: RunningHttpApi;
  let demoJobs: string[];
  let other: { bid: string; jids: string[] };

  const call = async (
    method: string,
    path: string,
    token: string | undefined,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer> => {
    const res = await fetch(api.url + path, {
      method,
      headers: {
        ...headers,
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Answer['body'] };
  };

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    const file = join(dir, 'credentials');
    const lines = Object.entries(PEOPLE).map(
      ([name, { role, collections }]) =>
        `${name}:token:${role}:${(collections ?? []).join(',')}:${hashToken(tokens[name]!)}`,
    );
    writeFileSync(file, `# roles.test\n${lines.join('\n')}\n`);
    demoJobs = (
      await expandedBatch(
        ctx,
        [0, 1, 2].map((i) => objectSpec(i, { collection: 'demo' })),
      )
    ).jids;
    other = await expandedBatch(ctx, [objectSpec(0, { collection: 'other', profile_name: 'other' })], {
      collection: 'other',
      profile_name: 'other',
    });
    const log = pino({ level: 'trace' }, { write: (line: string) => void logs.push(line) });
    api = await startHttpApi(await apiDeps(ctx, { credentialsFile: file, token: TOKEN, log }), { port: 0 });
  });
  afterAll(async () => {
    await api?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lets each role do its class of route and refuses the next class with 403 naming the role needed', async () => {
    const submission = { profile: 'demo', submitter: 'ann', payloadUrl: 'https://example.org/a.txt' };
    const classes: { needs: Role; action: string; run: (token: string) => Promise<Answer> }[] = [
      { needs: 'read', action: 'GET /whoami', run: (t) => call('GET', '/whoami', t) },
      { needs: 'submit', action: 'POST /batches', run: (t) => call('POST', '/batches', t, submission) },
      { needs: 'operator', action: 'hold job', run: (t) => call('POST', `/jobs/${demoJobs[0]}/hold`, t) },
      { needs: 'admin', action: 'pause queue', run: (t) => call('POST', '/queues/accessLarge/pause', t) },
    ];
    const order: Role[] = ['read', 'submit', 'operator', 'admin'];
    for (const name of ['reader', 'depositor', 'op', 'boss']) {
      const role = PEOPLE[name]!.role;
      for (const route of classes) {
        const answer = await route.run(tokens[name]!);
        if (order.indexOf(role) >= order.indexOf(route.needs)) {
          // Past the guard: done, or (a second hold) refused by the lifecycle.
          expect([200, 201, 409], `${name} ${route.action}: ${answer.body.message}`).toContain(answer.status);
        } else {
          expect(answer, `${name} ${route.action}`).toEqual({
            status: 403,
            body: {
              error: 'FORBIDDEN',
              message: `${route.action} needs role ${route.needs}; credential '${name}' has role ${role}`,
            },
          });
        }
      }
    }
    expect((await loadJob(ctx, demoJobs[0]!)).status).toBe('held');
    await call('POST', '/queues/accessLarge/resume', tokens.boss);
  });

  it('keeps reads open, checks a token sent to them, and needs a credential for /whoami', async () => {
    expect((await call('GET', '/batches', undefined)).status).toBe(200);
    expect(await call('GET', '/batches', 'mrtq_not-a-token')).toMatchObject({
      status: 401,
      body: { message: 'the bearer token is not valid' },
    });
    expect(await call('GET', '/whoami', undefined)).toMatchObject({
      status: 401,
      body: { message: 'send Authorization: Bearer <token>' },
    });
    expect((await call('POST', `/jobs/${demoJobs[1]}/hold`, undefined)).status).toBe(401);
  });

  it('names the caller: its role, collections and channel (the dashboard says so in a header)', async () => {
    expect((await call('GET', '/whoami', tokens['op-demo'])).body).toEqual({
      name: 'op-demo',
      role: 'operator',
      collections: ['demo'],
      via: 'api',
    });
    const fromDashboard = await call('GET', '/whoami', tokens.reader, undefined, {
      'x-mrtq-client': 'dashboard',
    });
    expect(fromDashboard.body).toEqual({ name: 'reader', role: 'read', via: 'dashboard' });
  });

  it('still takes MRTQ_API_TOKEN, as an admin named token', async () => {
    expect((await call('GET', '/whoami', TOKEN)).body).toEqual({ name: 'token', role: 'admin', via: 'api' });
    expect((await call('POST', '/queues/accessSmall/pause', TOKEN)).status).toBe(200);
    expect((await call('POST', '/queues/accessSmall/resume', TOKEN)).status).toBe(200);
  });

  it('lets a collection-limited operator act on its collection only, naming the one refused', async () => {
    const refused = await call('POST', `/jobs/${other.jids[0]}/hold`, tokens['op-demo']);
    expect(refused).toEqual({
      status: 403,
      body: {
        error: 'FORBIDDEN',
        message: "hold job on collection other: credential 'op-demo' is limited to collection demo",
      },
    });
    expect((await loadJob(ctx, other.jids[0]!)).status).toBe('pending');
    expect((await call('POST', `/jobs/${demoJobs[1]}/hold`, tokens['op-demo'])).status).toBe(200);
    expect((await loadJob(ctx, demoJobs[1]!)).status).toBe('held');
    expect((await call('POST', `/batches/${other.bid}/hold`, tokens['op-demo'])).body.message).toBe(
      "hold batch on collection other: credential 'op-demo' is limited to collection demo",
    );
    // Submissions: to its collection only (the profile's, or the one named).
    const submit = (profile: string) =>
      call('POST', '/batches', tokens['op-demo'], {
        profile,
        submitter: 'x',
        payloadUrl: 'https://example.org/b',
      });
    expect((await submit('other')).body.message).toBe(
      "POST /batches on collection other: credential 'op-demo' is limited to collection demo",
    );
    expect((await submit('demo')).status).toBe(201);
  });

  it('refuses a collection-limited admin what acts on every collection, and a bulk action not filtered to its own', async () => {
    expect((await call('POST', '/queues/ingest/pause', tokens['boss-demo'])).body.message).toBe(
      "pause queue acts on every collection; credential 'boss-demo' is limited to collection demo",
    );
    const bulk = (filter: Record<string, unknown>) =>
      call('POST', '/jobs/bulk/hold', tokens['boss-demo'], { ...filter, dryRun: true });
    expect((await bulk({ state: 'pending' })).body.message).toBe(
      `bulk action acts on every collection (name one of yours as the filter's "collection"); credential 'boss-demo' is limited to collection demo`,
    );
    expect((await bulk({ collection: 'other' })).status).toBe(403);
    const own = await bulk({ collection: 'demo' });
    expect(own.status, own.body.message).toBe(200);
    expect((await call('POST', '/collections/other/hold', tokens['boss-demo'])).status).toBe(403);
    expect(await ctx.zk.exists('/locks/queue/ingest')).toBeUndefined();
  });

  it('never writes a token to the log, in refusals or otherwise', () => {
    // Refusals and successes alike were logged at trace level above.
    const text = logs.join('');
    expect(text).toContain('request');
    for (const secret of [...Object.values(tokens), TOKEN]) expect(text).not.toContain(secret);
  });
});
