import { hostname } from 'node:os';
import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DEFAULT_STORAGE_NODE } from '../handoff/handoff.js';
import { formatHandOffManifest } from '../handoff/manifest.js';
import { javaUrlEncode } from '../../formats/java-url.js';
import { OutputError } from '../../output-errors.js';
import { writeFileAtomic } from '../../workdir/files.js';
import { displayUrl, excerpt, httpCall, joinUrl } from '../http-client.js';
import type { Storage, StoreRequest, StoreResult, UpdateRequest } from './port.js';

/**
 * Storage behind mrt-store's synchronous HTTP API: the legacy protocol Merritt's ingest spoke
 * before Storing went through ZooKeeper (merritt-protocols.md §1, "Legacy protocol"; ingest's
 * `HandlerTransfer` at 375a0c0, mrt-store's `JerseyStorage`), whose endpoints mrt-store still
 * serves. `POST {MRTQ_STORAGE_URL}/add/{node}/{ark}` (or `/update/…`), form-urlencoded, headers
 * `JID` and `hostname`; fields `t=json`, `manifest=<mrt-add-manifest>` or, from 1 MB, `url=` the
 * manifest's URL, and `delete` on an update. 200 is success, with the version in
 * `ver:versionState.ver:identifier`; 400 is a request mrt-store refuses (not retried), anything
 * else the service unavailable. The worker pick (`GET {service}/hostname`) is not made: the
 * configured URL is used as it is, as ingest did when the answer was `localhost` or `N/A`.
 * Idempotency is the service's part: it receives the identical manifest when a step is re-run.
 */

/** The manifest as written to the working directory (not listed in itself), for `url=`. */
export const HTTP_MANIFEST_FILE = 'system/mrt-storage-manifest.checkm';

/** From this size on the manifest goes by URL (`StorageUtil`: "manifest under 1 MB"). */
export const INLINE_MANIFEST_LIMIT = 1024 * 1024;

/** `StorageUtil.STORAGE_CONNECT_TIMEOUT`: 48 hours (no retry). */
const LEGACY_TIMEOUT_MS = 48 * 3600_000;

export interface HttpStorageOptions {
  /** Root of the working directories: file URLs are `filesBaseUrl` + the path below it. */
  workRoot: string;
  filesBaseUrl?: string;
}

function urlMaker(request: StoreRequest, options: HttpStorageOptions): (path: string) => string {
  const base = options.filesBaseUrl;
  if (!base) return (path) => pathToFileURL(join(request.workDir, path)).href;
  const jobPart = relative(options.workRoot, request.workDir)
    .split(/[\\/]/)
    .map(encodeURIComponent)
    .join('/');
  return (path) => joinUrl(base, `${jobPart}/${path.split('/').map(encodeURIComponent).join('/')}`);
}

/** The version in mrt-store's JSON answer (`ver:versionState` → `ver:identifier`), if any. */
function versionOf(text: string): number | undefined {
  try {
    const json = JSON.parse(text) as Record<string, unknown>;
    const state = json['ver:versionState'] as Record<string, unknown> | undefined;
    const version = Number(state?.['ver:identifier']);
    return Number.isInteger(version) && version >= 1 ? version : undefined;
  } catch {
    return undefined;
  }
}

/** The form fields: the manifest inline below 1 MB, else its URL; `delete` on an update. */
async function formOf(
  request: StoreRequest | UpdateRequest,
  options: HttpStorageOptions,
): Promise<URLSearchParams> {
  const urlOf = urlMaker(request, options);
  const rows = request.files.map((file) => ({ ...file, url: urlOf(file.path) }));
  const manifest = formatHandOffManifest(rows);
  await writeFileAtomic(join(request.workDir, HTTP_MANIFEST_FILE), manifest);
  const form = new URLSearchParams({ t: 'json' });
  if (Buffer.byteLength(manifest) < INLINE_MANIFEST_LIMIT) form.set('manifest', manifest);
  else form.set('url', urlOf(HTTP_MANIFEST_FILE));
  // HandlerTransfer's deleteField: a newline after every path.
  if ('deletes' in request) form.set('delete', request.deletes.map((path) => `${path}\n`).join(''));
  return form;
}

async function post(url: string, request: StoreRequest, form: URLSearchParams, timeoutMs: number) {
  try {
    return await httpCall({
      url,
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        ...(request.jobId ? { JID: request.jobId } : {}),
        hostname: hostname(),
      },
      body: form.toString(),
      timeoutMs,
      signal: request.signal,
    });
  } catch (err) {
    request.signal.throwIfAborted();
    const why = err instanceof Error ? err.message : String(err);
    throw new OutputError('STORAGE_FAILED', `storage ${displayUrl(url)} unreachable: ${why}`, {
      cause: err,
      retryable: true,
    });
  }
}

/** The HTTP storage client (mrt-store's legacy API). */
export function createHttpStorage(
  endpoint: { url: string; timeoutMs?: number },
  options: HttpStorageOptions,
): Storage {
  const base = endpoint.url.replace(/\/+$/, '');
  const send = async (action: 'add' | 'update', request: StoreRequest): Promise<StoreResult> => {
    const target = `${request.node ?? DEFAULT_STORAGE_NODE}/${javaUrlEncode(request.ark)}`;
    const url = `${base}/${action}/${target}`;
    const form = await formOf(request, options);
    const answer = await post(url, request, form, endpoint.timeoutMs ?? LEGACY_TIMEOUT_MS);
    const version = answer.status === 200 ? versionOf(answer.text) : undefined;
    if (version === undefined) {
      const why =
        answer.status === 200
          ? 'expected JSON with ver:versionState.ver:identifier'
          : answer.status === 400
            ? 'REQUEST_INVALID: mrt-store refused the request'
            : 'EXTERNAL_SERVICE_UNAVAILABLE';
      throw new OutputError(
        'STORAGE_FAILED',
        `storage ${displayUrl(url)} answered ${answer.status} "${excerpt(answer.text)}" for ${request.ark} (${why})`,
        { retryable: answer.status !== 400 && answer.status !== 200 },
      );
    }
    return { version, manifestUrl: `${base}/manifest/${target}` };
  };
  return {
    store: (request) => send('add', request),
    update: (request) => send('update', request),
  };
}
