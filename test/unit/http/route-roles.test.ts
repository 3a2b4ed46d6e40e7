import { pino } from 'pino';
import { of } from 'rxjs';
import { describe, expect, it } from 'vitest';
import { merrittJobLifecycle } from '../../../machines/index.js';
import { createHttpApi } from '../../../src/http/index.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import type { ProfileStore } from '../../../src/steps/formats/profiles/profiles.js';
import type { ZkClient } from '../../../src/zk/index.js';

const zk = {
  session$: of({ state: 'connected', sessionId: '1', at: 0 }),
  isConnected: true,
} as unknown as ZkClient;
const log = pino({ level: 'silent' });
const queue: QueueContext = { zk, lifecycle: merrittJobLifecycle, log, now: () => new Date() };
const profiles = { names: () => ['demo'] } as unknown as ProfileStore;

/** The role each route that changes the queue needs (issue 35), as the OpenAPI document states it. */
const EXPECTED: Record<string, string> = {
  'POST /batches': 'submit',
  'POST /batches/manifest': 'submit',
  ...Object.fromEntries(
    ['hold', 'release', 'requeue', 'retry'].map((a) => [`POST /jobs/{jid}/${a}`, 'operator']),
  ),
  ...Object.fromEntries(['delete', 'fail'].map((a) => [`POST /jobs/{jid}/${a}`, 'admin'])),
  ...Object.fromEntries(
    ['hold', 'release', 'update-report'].map((a) => [`POST /batches/{bid}/${a}`, 'operator']),
  ),
  'POST /batches/{bid}/delete': 'admin',
  'POST /jobs/bulk/{action}': 'admin',
  'POST /queues/{queue}/pause': 'admin',
  'POST /queues/{queue}/resume': 'admin',
  'POST /collections/{mnemonic}/hold': 'admin',
  'POST /collections/{mnemonic}/release': 'admin',
  'PUT /windows/{name}': 'admin',
  'DELETE /windows/{name}': 'admin',
  'POST /windows/{name}/skip': 'admin',
  'PUT /policies/retry': 'admin',
  'PUT /policies/shares': 'admin',
  'POST /policies/shares/{key}': 'admin',
  'POST /access/{queue}/{qid}/requeue': 'operator',
  'POST /access/{queue}/{qid}/delete': 'admin',
  'POST /access/cleanup': 'admin',
};

describe('the role each route needs', () => {
  it('is stated for every route that changes the queue, as the issue assigns them; reads need none', async () => {
    const api = createHttpApi({ queue, profiles, token: 'secret', ready: () => false, log });
    try {
      const doc = (await api.inject({ method: 'GET', url: '/openapi.json' })).json<{
        paths: Record<string, Record<string, { description?: string }>>;
      }>();
      const roles: Record<string, string | undefined> = {};
      for (const [path, operations] of Object.entries(doc.paths))
        for (const [method, operation] of Object.entries(operations))
          roles[`${method.toUpperCase()} ${path}`] = /role (\w+) or more/.exec(
            operation.description ?? '',
          )?.[1];
      for (const [route, role] of Object.entries(EXPECTED)) expect(roles[route], route).toBe(role);
      for (const [route, role] of Object.entries(roles)) {
        if (route.startsWith('GET ')) expect(role, route).toBeUndefined();
        else expect(role, `${route} states no role`).toBeDefined();
      }
    } finally {
      await api.close();
    }
  });
});
