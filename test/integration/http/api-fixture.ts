import { join } from 'node:path';
import { pino } from 'pino';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { loadProfiles, type ProfileStore } from '../../../src/steps/formats/profiles/profiles.js';
import type { HttpApiDeps } from '../../../src/http/index.js';

export const TOKEN = 'test-token-5d1f';

/**
 * The profiles in test/support/profiles: `demo` (collection demo) and `other` (collection other).
 * Read-only, so every test shares them (a temporary copy per call was never removed).
 */
export async function testProfiles(): Promise<ProfileStore> {
  return loadProfiles(join(import.meta.dirname, '..', '..', 'support', 'profiles'));
}

/** Deps for the API over `queue`, token {@link TOKEN} unless given. */
export async function apiDeps(
  queue: QueueContext,
  overrides: Partial<HttpApiDeps> = {},
): Promise<HttpApiDeps> {
  return {
    queue,
    profiles: await testProfiles(),
    token: TOKEN,
    ready: () => queue.zk.isConnected,
    log: pino({ level: 'silent' }),
    ...overrides,
  };
}

/** An answer: status, headers, parsed JSON body (or text). */
export interface Answer<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** A tiny client of a listening API. */
export function client(base: string, token: string | undefined = TOKEN) {
  const call = async <T>(
    method: string,
    path: string,
    body: unknown,
    auth: string | undefined,
  ): Promise<Answer<T>> => {
    const headers: Record<string, string> = {};
    if (auth !== undefined) headers.authorization = `Bearer ${auth}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(base + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    const json = res.headers.get('content-type')?.includes('json') ? (JSON.parse(text) as T) : (text as T);
    return { status: res.status, headers: res.headers, body: json, text };
  };
  return {
    get: <T = Record<string, unknown>>(path: string) => call<T>('GET', path, undefined, token),
    post: <T = Record<string, unknown>>(path: string, body?: unknown, auth?: string) =>
      call<T>('POST', path, body, auth ?? token),
    postWithout: <T = Record<string, unknown>>(path: string, body?: unknown) =>
      call<T>('POST', path, body, undefined),
  };
}
