import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { of } from 'rxjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { merrittJobLifecycle } from '../../../machines/index.js';
import { credentialStore } from '../../../src/auth/credential-store.js';
import { openApiRoute, serveRoutes } from '../../../src/http/app.js';
import type { RouteSpec } from '../../../src/http/deps.js';
import { createHttpApi } from '../../../src/http/index.js';
import { UI_DIR } from '../../../src/http/routes/ui.js';
import { packageRoot } from '../../../src/package-root.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import type { ProfileStore } from '../../../src/steps/formats/profiles/profiles.js';
import type { ZkClient } from '../../../src/zk/index.js';

/** A ZooKeeper client none of these requests may reach. */
const zk = new Proxy(
  { session$: of({ state: 'connected', sessionId: '1', at: 0 }), isConnected: true },
  {
    get: (target, key) =>
      key in target
        ? target[key as keyof typeof target]
        : () => {
            throw new Error(`ZooKeeper touched: ${String(key)}`);
          },
  },
) as unknown as ZkClient;
const profiles = { names: () => ['demo'] } as unknown as ProfileStore;
const log = pino({ level: 'silent' });
const queue: QueueContext = { zk, lifecycle: merrittJobLifecycle, log, now: () => new Date() };

describe('the OpenAPI document (@fastify/swagger)', () => {
  it('lists a route that was only declared as a RouteSpec, with its schemas, tag and token requirement', async () => {
    const probe: RouteSpec = {
      method: 'POST',
      url: '/probes/:name/poke',
      tag: 'operators',
      summary: 'A route no list of paths knows about',
      mutating: true,
      schema: {
        params: { type: 'object', properties: { name: { type: 'string', pattern: '^[a-z]+$' } } },
        body: { type: 'object', properties: { hard: { type: 'boolean' } }, additionalProperties: false },
        response: { 200: { type: 'object', properties: { poked: { type: 'string' } } } },
      },
      handler: (request) => Promise.resolve({ poked: (request.params as { name: string }).name }),
    };
    const app = Fastify();
    serveRoutes(app, [probe, openApiRoute()], {
      credentials: credentialStore({ apiToken: 'secret' }),
      queue,
      profiles,
    });
    try {
      const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json<{
        paths: Record<string, Record<string, Record<string, unknown>>>;
      }>();
      expect(Object.keys(doc.paths).sort()).toEqual(['/openapi.json', '/probes/{name}/poke']);
      expect(doc.paths['/probes/{name}/poke']!.post).toMatchObject({
        operationId: 'postProbesNamePoke',
        summary: 'A route no list of paths knows about',
        tags: ['operators'],
        security: [{ bearer: [] }],
        parameters: [
          { in: 'path', name: 'name', required: true, schema: { type: 'string', pattern: '^[a-z]+$' } },
        ],
        requestBody: { required: false },
        responses: {
          '200': { description: 'OK' },
          '4XX': { content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
        },
      });
      const poked = await app.inject({
        method: 'POST',
        url: '/probes/abc/poke',
        headers: { authorization: 'Bearer secret' },
      });
      expect(poked.json()).toEqual({ poked: 'abc' });
    } finally {
      await app.close();
    }
  });
});

describe('bearer auth (@fastify/bearer-auth) and the dashboard files (@fastify/static)', () => {
  let api: FastifyInstance;
  beforeAll(() => {
    api = createHttpApi({ queue, profiles, token: 'secret', ready: () => false, log });
  });
  afterAll(() => api.close());

  it('refuses a wrong token and another scheme with the 401s of before; takes `bearer` in any case', async () => {
    const post = (authorization?: string) =>
      api.inject({
        method: 'POST',
        url: '/queues/everything/pause',
        headers: authorization === undefined ? {} : { authorization },
      });
    const wrong = await post('Bearer nope');
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toEqual({ error: 'UNAUTHORIZED', message: 'the bearer token is not valid' });
    expect(wrong.headers['www-authenticate']).toBe('Bearer realm="mrtq", error="invalid_token"');
    for (const authorization of [undefined, 'Basic c2VjcmV0', 'Bearer']) {
      const missing = await post(authorization);
      expect(missing.statusCode, authorization).toBe(401);
      expect(missing.json(), authorization).toEqual({
        error: 'UNAUTHORIZED',
        message: 'send Authorization: Bearer <token>',
      });
      expect(missing.headers['www-authenticate']).toBe('Bearer realm="mrtq"');
    }
    // Past the token: the queue name is validated (400), ZooKeeper never reached.
    for (const authorization of ['Bearer secret', 'bearer secret', 'Bearer  secret ']) {
      const res = await post(authorization);
      expect(res.statusCode, authorization).toBe(400);
      expect(res.json(), authorization).toMatchObject({ error: 'VALIDATION', field: 'params.queue' });
    }
  });

  it('serves the dashboard files with their types, policy and validators, and revalidates with a 304', async () => {
    for (const [url, type] of [
      ['/ui', /^text\/html/],
      ['/ui/', /^text\/html/],
      ['/ui/app.js', /^text\/javascript; charset=utf-8$/],
      ['/ui/style.css', /^text\/css/],
    ] as const) {
      const res = await api.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toMatch(type);
      expect(res.headers['cache-control'], url).toBe('no-cache');
      expect(res.headers['content-security-policy'], url).toContain("default-src 'none'");
      expect(res.headers['x-content-type-options'], url).toBe('nosniff');
      expect(res.headers['referrer-policy'], url).toBe('no-referrer');
      expect(res.headers.etag, url).toBeDefined();
      expect(res.headers['last-modified'], url).toBeDefined();
    }
    const page = await api.inject({ method: 'GET', url: '/ui' });
    expect(page.body).toBe(readFileSync(join(UI_DIR, 'index.html'), 'utf8'));
    const script = await api.inject({ method: 'GET', url: '/ui/app.js' });
    const again = await api.inject({
      method: 'GET',
      url: '/ui/app.js',
      headers: { 'if-none-match': String(script.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
  });

  it('serves nothing outside the folder, and lists no directory', async () => {
    for (const url of [
      '/ui/../package.json',
      '/ui/..%2Fpackage.json',
      '/ui/%2e%2e/package.json',
      '/ui/%2e%2e%2fpackage.json',
      '/ui/..%5Cpackage.json',
      '/ui//etc/passwd',
      '/ui/nope.js',
    ]) {
      const res = await api.inject({ method: 'GET', url });
      expect([403, 404], url).toContain(res.statusCode);
      expect(res.body, url).not.toContain('"name": "mrtq"');
      expect(res.json<{ error: string }>(), url).toHaveProperty('error');
    }
  });

  it('finds the folder from the package root, so a build in dist/ serves the same files', () => {
    expect(UI_DIR).toBe(join(packageRoot(), 'ui'));
  });
});
