import type { Inventory, InventoryRecord } from './inventory.js';
import { OutputError } from './output-errors.js';
import { assertArk } from './output-files.js';
import { displayUrl, excerpt, httpCall, joinUrl, type HttpCall } from './output-http.js';

/**
 * Inventory behind an HTTP service:
 * - `POST <url>/objects` with JSON `{ ark, version, manifestUrl, localId? }`: any 2xx records it
 *   (the service treats a repeat as a no-op); 409 means the local id names another object.
 * - `GET <url>/local-ids/<local id, URL-encoded>`: 200 with JSON `{ "ark": … }`, or 404 when the
 *   local id is unknown.
 */

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

function arkOf(text: string): string | undefined {
  try {
    const json = JSON.parse(text) as { ark?: unknown };
    return typeof json.ark === 'string' ? assertArk(json.ark) : undefined;
  } catch {
    return undefined;
  }
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
    async lookupLocalId(localId: string, signal: AbortSignal): Promise<string | undefined> {
      const url = joinUrl(endpoint.url, `local-ids/${encodeURIComponent(localId)}`);
      const answer = await call(endpoint, { url, method: 'GET', signal });
      if (answer.status === 404) return undefined;
      const ark = answer.status === 200 ? arkOf(answer.text) : undefined;
      if (ark) return ark;
      throw failure(url, answer.status, answer.text, `looking up local id ${JSON.stringify(localId)}`);
    },
  };
}
