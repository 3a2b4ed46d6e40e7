import { join, relative } from 'node:path';
import { pathToFileURL } from 'node:url';
import { OutputError } from './output-errors.js';
import { writeFileAtomic } from './output-files.js';
import { displayUrl, excerpt, httpCall, joinUrl } from './output-http.js';
import type { Storage, StoreRequest, StoreResult } from './storage.js';
import { formatStorageManifest } from './storage-manifest.js';

/**
 * Storage behind an HTTP service. The manifest is written into the working directory
 * (`system/mrt-storage-manifest.checkm`, not listed in itself) and POSTed as JSON:
 * `{ "ark", "manifestUrl", "manifest", "fileCount" }`. A 2xx answer must be JSON with the
 * stored `version` (a number) and may name the stored manifest's `manifestUrl`; anything else
 * fails naming the status and the start of the answer. Idempotency is the service's part: it
 * receives the identical manifest when a step is re-run.
 */

export const HTTP_MANIFEST_FILE = 'system/mrt-storage-manifest.checkm';

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

function parseAnswer(text: string): { version: number; manifestUrl?: string } | undefined {
  try {
    const json = JSON.parse(text) as { version?: unknown; manifestUrl?: unknown };
    if (typeof json.version !== 'number' || !Number.isInteger(json.version) || json.version < 1)
      return undefined;
    return typeof json.manifestUrl === 'string'
      ? { version: json.version, manifestUrl: json.manifestUrl }
      : { version: json.version };
  } catch {
    return undefined;
  }
}

async function post(url: string, timeoutMs: number, body: string, signal: AbortSignal) {
  try {
    return await httpCall({
      url,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      timeoutMs,
      signal,
    });
  } catch (err) {
    signal.throwIfAborted();
    const why = err instanceof Error ? err.message : String(err);
    throw new OutputError('STORAGE_FAILED', `storage ${displayUrl(url)} unreachable: ${why}`, {
      cause: err,
      retryable: true,
    });
  }
}

/** The HTTP storage client. */
export function createHttpStorage(
  endpoint: { url: string; timeoutMs?: number },
  options: HttpStorageOptions,
): Storage {
  return {
    async store(request: StoreRequest): Promise<StoreResult> {
      const urlOf = urlMaker(request, options);
      const manifest = formatStorageManifest(request.files, urlOf);
      await writeFileAtomic(join(request.workDir, HTTP_MANIFEST_FILE), manifest);
      const manifestUrl = urlOf(HTTP_MANIFEST_FILE);
      const body = JSON.stringify({
        ark: request.ark,
        manifestUrl,
        manifest,
        fileCount: request.files.length,
      });
      const answer = await post(endpoint.url, endpoint.timeoutMs ?? 300_000, body, request.signal);
      const stored = answer.status >= 200 && answer.status < 300 ? parseAnswer(answer.text) : undefined;
      if (!stored) {
        throw new OutputError(
          'STORAGE_FAILED',
          `storage ${displayUrl(endpoint.url)} answered ${answer.status} "${excerpt(answer.text)}" ` +
            `for ${request.ark} (expected 2xx JSON with a version)`,
          { retryable: answer.status >= 500 },
        );
      }
      return { version: stored.version, manifestUrl: stored.manifestUrl ?? manifestUrl };
    },
  };
}
