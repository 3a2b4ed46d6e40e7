import { javaUrlEncode } from '../../formats/anvl.js';
import { withRetry } from '../http-retry.js';
import type { Inventory, InventoryRecord, LocalIdPair } from './port.js';
import { OutputError } from '../../output-errors.js';
import { assertArk } from '../../workdir/files.js';
import { displayUrl, excerpt, httpCall, joinUrl, type HttpCall } from '../http-client.js';

/**
 * Inventory behind an HTTP service:
 * - `POST <url>/objects` with JSON `{ ark, version, manifestUrl, localId? }`: any 2xx records it
 *   (the service treats a repeat as a no-op); 409 means the local id names another object. This
 *   one is the engine's own: Merritt's inventory records versions from `/jobs/JID/inventory`.
 * - Local ids as Merritt's inventory serves them (merritt-protocols.md §3, `LocalIDUtil`):
 *   `GET <url>/primary/{owner}/{local id}?t=json` answers `invloc:localContainerState` with
 *   `invloc:exists` and `invloc:primaryIdentifier`; `POST <url>/primary/{ark}/{owner}/{local id}?t=xml`
 *   (form content type, empty body) records a pair, 200 meaning done. Parts are URL-encoded
 *   as Java's URLEncoder does.
 */

/** Attempts of recording a pair while the service cannot be reached (Merritt: 3 retries). */
const BIND_ATTEMPTS = 4;
const BIND_RETRY_MS = 1_000;

async function call(
  endpoint: { url: string; timeoutMs?: number },
  request: Omit<HttpCall, 'timeoutMs'>,
): Promise<{ status: number; text: string }> {
  try {
    return await httpCall({ ...request, timeoutMs: endpoint.timeoutMs ?? 30_000 });
  } catch (err) {
    request.signal.throwIfAborted();
    const why = err instanceof Error ? err.message : String(err);
    throw new OutputError('INVENTORY_FAILED', `inventory ${displayUrl(request.url)} unreachable: ${why}`, {
      cause: err,
      retryable: true,
    });
  }
}

function failure(url: string, status: number, text: string, what: string): OutputError {
  return new OutputError(
    status === 409 ? 'IDENTIFIER_CONFLICT' : 'INVENTORY_FAILED',
    `inventory ${displayUrl(url)} answered ${status} "${excerpt(text)}" to ${what}`,
    { retryable: status >= 500 },
  );
}

type LocalState = { exists: boolean; ark?: string } | undefined;

/** `{"invloc:localContainerState": {"invloc:exists": true, "invloc:primaryIdentifier": "ark:/…"}}`. */
function localStateOf(text: string): LocalState {
  try {
    const json = JSON.parse(text) as Record<string, unknown>;
    const state = json['invloc:localContainerState'] as Record<string, unknown> | undefined;
    const exists = state?.['invloc:exists'];
    if (typeof exists !== 'boolean') return undefined;
    const primary = state?.['invloc:primaryIdentifier'];
    const ark = typeof primary === 'string' && primary.trim() !== '' ? assertArk(primary.trim()) : undefined;
    return { exists, ...(ark ? { ark } : {}) };
  } catch {
    return undefined;
  }
}

/** A call sent again (Merritt: 3 more times) while the service cannot be reached; every answer counts. */
function callRetrying(endpoint: { url: string; timeoutMs?: number }, request: Omit<HttpCall, 'timeoutMs'>) {
  const policy = { retries: BIND_ATTEMPTS - 1, delayMs: BIND_RETRY_MS, factor: 1 };
  return withRetry({ ...policy, signal: request.signal, retryable: () => true }, () =>
    call(endpoint, request),
  );
}

/** Merritt scopes every local id by the profile's owner: without one there is nothing to ask. */
function requireOwner(owner: string | undefined, localId: string): string {
  if (owner) return owner;
  throw new OutputError(
    'INVENTORY_FAILED',
    `local id ${JSON.stringify(localId)} cannot be looked up or recorded: the profile names no Owner, ` +
      "and Merritt's inventory keeps local ids per owner; set Owner (owner) in the profile",
  );
}

/** A refusal to bind: Merritt's inventory answers 400 "… does not match …" for a local id of another object. */
function bindFailure(url: string, answer: { status: number; text: string }, pair: LocalIdPair) {
  const conflict = answer.status === 409 || (answer.status === 400 && /does not match/i.test(answer.text));
  if (!conflict)
    return failure(url, answer.status, answer.text, `recording local id ${JSON.stringify(pair.localId)}`);
  return new OutputError(
    'IDENTIFIER_CONFLICT',
    `local id ${JSON.stringify(pair.localId)} of owner ${pair.owner} already names another object; ` +
      `inventory ${displayUrl(url)} refused to bind it to ${pair.ark}: "${excerpt(answer.text)}"`,
  );
}

/** The HTTP inventory client. */
export function createHttpInventory(endpoint: { url: string; timeoutMs?: number }): Inventory {
  return {
    async record(request: InventoryRecord): Promise<void> {
      const url = joinUrl(endpoint.url, 'objects');
      const { signal, ...record } = request;
      const answer = await call(endpoint, {
        url,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(record),
        signal,
      });
      if (answer.status < 200 || answer.status >= 300) {
        throw failure(url, answer.status, answer.text, `recording ${request.ark} v${request.version}`);
      }
    },
    async lookupLocalId(localId: string, signal: AbortSignal, owner?: string): Promise<string | undefined> {
      const path = `primary/${javaUrlEncode(requireOwner(owner, localId))}/${javaUrlEncode(localId)}?t=json`;
      const url = joinUrl(endpoint.url, path);
      const answer = await call(endpoint, { url, method: 'GET', signal });
      const state = answer.status === 200 ? localStateOf(answer.text) : undefined;
      if (state) return state.exists ? state.ark : undefined;
      throw failure(url, answer.status, answer.text, `looking up local id ${JSON.stringify(localId)}`);
    },
    async bindLocalId(pair: LocalIdPair): Promise<void> {
      const owner = requireOwner(pair.owner, pair.localId);
      const parts = [pair.ark, owner, pair.localId].map(javaUrlEncode).join('/');
      const url = joinUrl(endpoint.url, `primary/${parts}?t=xml`);
      const request = {
        url,
        method: 'POST' as const,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: '',
        signal: pair.signal,
      };
      const answer = await callRetrying(endpoint, request);
      if (answer.status !== 200) throw bindFailure(url, answer, pair);
    },
  };
}
