import { merrittJobLifecycle } from '../../../machines/index.js';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { of } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpApi } from '../../../src/http/index.js';
import { actionBody, submitBody } from '../../../src/http/schemas.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import type { ProfileStore } from '../../../src/steps/formats/profiles/profiles.js';
import type { ZkClient } from '../../../src/zk/index.js';

/** A ZooKeeper client that fails the test if a route reaches the store. */
function untouchableZk(touched: string[]): ZkClient {
  const base = { session$: of({ state: 'connected', sessionId: '1', at: 0 }), isConnected: true };
  return new Proxy(base, {
    get: (target, key) =>
      key in target
        ? target[key as keyof typeof target]
        : () => {
            touched.push(String(key));
            throw new Error(`ZooKeeper touched: ${String(key)}`);
          },
  }) as unknown as ZkClient;
}

const profiles: ProfileStore = {
  getProfile: () => ({
    name: 'demo',
    collection: 'demo',
    priority: 5,
    notifications: [],
    responseType: 'json',
  }),
  resolve: () => Promise.reject(new Error('not reached in these tests')),
  names: () => ['demo'],
  reload: () => Promise.resolve(),
};

function app(token: string | undefined, touched: string[]): FastifyInstance {
  const log = pino({ level: 'silent' });
  const queue: QueueContext = {
    zk: untouchableZk(touched),
    lifecycle: merrittJobLifecycle,
    log,
    now: () => new Date(),
  };
  return createHttpApi({ queue, profiles, token, ready: () => false, log });
}

describe('routing (inject; nothing reaches ZooKeeper)', () => {
  const touched: string[] = [];
  let api: FastifyInstance;
  beforeAll(() => {
    api = app('secret', touched);
  });
  afterAll(async () => {
    await api.close();
    expect(touched).toEqual([]);
  });

  it('checks the token before the body: no token, a malformed body → 401, not 400', async () => {
    const res = await api.inject({ method: 'POST', url: '/batches', payload: { nonsense: true } });
    expect(res.statusCode).toBe(401);
    expect(res.headers['www-authenticate']).toBe('Bearer realm="mrtq"');
    expect(res.json()).toEqual({ error: 'UNAUTHORIZED', message: 'send Authorization: Bearer <token>' });
  });

  it('validates bodies, params and queries before calling the store', async () => {
    const headers = { authorization: 'Bearer secret' };
    const cases: [string, string, object | undefined, string][] = [
      ['POST', '/batches', { profile: 'demo' }, 'body.submitter'],
      ['POST', '/jobs/jid1/hold', { force: 'yes' }, 'body.force'],
      ['POST', '/jobs/42/hold', {}, 'params.jid'],
      ['POST', '/queues/everything/pause', undefined, 'params.queue'],
      ['POST', '/collections/a b/hold', undefined, 'params.mnemonic'],
      ['GET', '/batches?limit=0', undefined, 'querystring.limit'],
      ['GET', '/jobs?state=waiting', undefined, 'querystring.state'],
      ['GET', '/jobs?offset=-1', undefined, 'querystring.offset'],
    ];
    for (const [method, url, payload, field] of cases) {
      const res = await api.inject({ method: method as 'GET' | 'POST', url, headers, payload });
      expect(res.statusCode, url).toBe(400);
      expect(res.json(), url).toMatchObject({ error: 'VALIDATION', field });
    }
  });

  it('refuses every mutating route with 403 when no token is configured, reads stay open', async () => {
    const readOnly = app(undefined, touched);
    try {
      const res = await readOnly.inject({
        method: 'POST',
        url: '/queues/ingest/pause',
        headers: { authorization: 'Bearer x' },
      });
      expect(res.statusCode).toBe(403);
      expect(res.json<{ message: string }>().message).toContain('MRTQ_API_TOKEN');
      expect((await readOnly.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    } finally {
      await readOnly.close();
    }
  });

  it('answers HEAD for probes, but not for the never-ending event stream', async () => {
    expect((await api.inject({ method: 'HEAD', url: '/healthz' })).statusCode).toBe(200);
    expect((await api.inject({ method: 'HEAD', url: '/events' })).statusCode).toBe(404);
  });

  it('answers JSON 404 for unknown routes and 503 from /readyz when not ready', async () => {
    const missing = await api.inject({ method: 'GET', url: '/nope' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toEqual({ error: 'NOT_FOUND', message: 'no route GET /nope' });
    const ready = await api.inject({ method: 'GET', url: '/readyz' });
    expect(ready.statusCode).toBe(503);
    expect(ready.json()).toMatchObject({
      error: 'NOT_READY',
      message: 'not ready: the engine consumers are not running',
    });
  });

  it('documents every route with the schemas it validates with', async () => {
    const doc = (await api.inject({ method: 'GET', url: '/openapi.json' })).json<{
      paths: Record<
        string,
        Record<string, { requestBody?: { required: boolean; content: object }; security?: unknown }>
      >;
    }>();
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const method of Object.keys(ops)) {
        const url = path.replace(/\{(\w+)\}/g, ':$1');
        expect(api.hasRoute({ method: method.toUpperCase(), url }), `${method} ${path}`).toBe(true);
      }
    }
    expect(doc.paths['/batches']!.post!.requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: JSON.parse(JSON.stringify(submitBody)) as unknown } },
    });
    expect(doc.paths['/jobs/{jid}/requeue']!.post!.requestBody).toEqual({
      required: false,
      content: { 'application/json': { schema: JSON.parse(JSON.stringify(actionBody)) as unknown } },
    });
    expect(doc.paths['/jobs/{jid}/requeue']!.post!.security).toEqual([{ bearer: [] }]);
    expect(doc.paths['/jobs/{jid}']!.get!.security).toBeUndefined();
  });
});
