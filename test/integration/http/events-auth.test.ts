import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHttpApi, type RunningHttpApi } from '../../../src/http/index.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { queueContext } from '../../support/queue-context.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { apiDeps, TOKEN } from './api-fixture.js';
import { openEvents } from './sse-client.js';

const chroot = useZkChroot();

/** Opens `path` and closes it at once: status, content type and, for an error, its body. */
async function probe(
  base: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; type: string; body?: unknown; challenge?: string | null }> {
  const abort = new AbortController();
  const res = await fetch(base + path, { headers, signal: abort.signal });
  const type = res.headers.get('content-type') ?? '';
  if (type.startsWith('text/event-stream')) {
    abort.abort();
    return { status: res.status, type };
  }
  return { status: res.status, type, body: await res.json(), challenge: res.headers.get('www-authenticate') };
}

/** Opens `/events` with `token` (none: no header) and waits for `ready`. */
async function ready(base: string, token: string | undefined): Promise<void> {
  const events = await openEvents(base, token);
  try {
    await events.next((e) => e.event === 'ready');
  } finally {
    events.close();
  }
}

describe('GET /events needs the token when one is configured', () => {
  let ctx: QueueContext;
  let api: RunningHttpApi;
  let open: RunningHttpApi;
  const logLines: string[] = [];

  beforeAll(async () => {
    ctx = queueContext(await chroot.connect());
    await ensureQueueTree(ctx.zk);
    const log = pino({ level: 'debug' }, { write: (line: string) => logLines.push(line) });
    api = await startHttpApi(await apiDeps(ctx, { log }), { port: 0 });
    open = await startHttpApi(await apiDeps(ctx, { token: undefined }), { port: 0 });
  });
  afterAll(async () => {
    await api?.close();
    await open?.close();
  });

  it('refuses a client without the token, or with a wrong one, with 401 saying what to send', async () => {
    expect(await probe(api.url, '/events')).toMatchObject({
      status: 401,
      body: { error: 'UNAUTHORIZED', message: 'send Authorization: Bearer <token>, or ?token=<token>' },
      challenge: 'Bearer realm="mrtq"',
    });
    for (const [path, headers] of [
      ['/events', { authorization: 'Bearer not-the-token' }],
      ['/events?token=not-the-token', {}],
    ] as const) {
      expect(await probe(api.url, path, headers), path).toMatchObject({
        status: 401,
        body: { error: 'UNAUTHORIZED', message: 'the bearer token is not valid' },
      });
    }
    // A token in the query is not logged.
    expect(logLines.join('')).toContain('/events?token=…');
    expect(logLines.join('')).not.toContain('not-the-token');
  });

  it('streams to a client with the token, as a bearer header or as ?token= (EventSource)', async () => {
    await ready(api.url, TOKEN);
    const byQuery = await probe(api.url, `/events?token=${TOKEN}`);
    expect(byQuery).toMatchObject({ status: 200, type: 'text/event-stream; charset=utf-8' });
  });

  it('stays open to every client when no token is configured, as before', async () => {
    await ready(open.url, undefined);
  });

  it('documents the token in the OpenAPI document: none, the bearer header or the query', async () => {
    const doc = (await (await fetch(`${api.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { security?: unknown }>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    expect(doc.paths['/events']!.get!.security).toEqual([{}, { bearer: [] }, { queryToken: [] }]);
    expect(doc.components.securitySchemes.queryToken).toEqual({ type: 'apiKey', in: 'query', name: 'token' });
  });
});
