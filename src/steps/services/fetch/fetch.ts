import { rm } from '../../fs/calls.js';
import type { FetchSettings } from '../../../config/ingest-settings.js';
import { DEFAULT_ALGORITHM } from '../../formats/digest.js';
import { FetchError } from '../../intake-errors.js';
import { createFileSource } from './file.js';
import { createHttpSource } from './http.js';
import { FileProgress, verify, type Expected, type Verified } from './sink.js';
import type { Span } from '@opentelemetry/api';
import { Attr, SpanName } from '../../../telemetry/attributes.js';
import { withChildSpan } from '../../../telemetry/span.js';
import { redactUrl, splitCredentials } from '../../formats/url-credentials.js';
import { openFresh } from '../../workdir/files.js';

/** Options of {@link Fetcher.text}. */
export interface TextOptions {
  signal: AbortSignal;
  /** Defaults to `maxManifestBytes`. */
  maxBytes?: number;
}

/** Options of {@link Fetcher.toFile}. */
export interface ToFileOptions {
  signal: AbortSignal;
  /** What the depositor said; the file is deleted and the fetch fails when it does not match. */
  expected?: Expected;
  /**
   * Creates the file through the thread pool (openOffLoop): for a download among several in
   * flight, whose create a pool thread can make on the other core while the loop serves the others.
   */
  createOffLoop?: boolean;
}

/**
 * What {@link Fetcher.toFile} wrote: size and digest (in the expected digest's algorithm, else
 * sha256), verified when expected ones were given; its sha256 and first bytes from the same pass.
 */
export type FetchedFile = Verified;

/**
 * Fetches depositors' URLs: `http(s)://` (timeouts, retries with backoff, Range resume) and
 * `file://` below the configured roots. Every failure a depositor can cause is a FetchError
 * whose message names the URL and what was wrong.
 */
export interface Fetcher {
  /** A small text resource (a manifest), whole, as UTF-8. */
  text(url: string, options: TextOptions): Promise<string>;
  /** Streams a resource to `destPath` (created or overwritten), computing and checking its digest. */
  toFile(url: string, destPath: string, options: ToFileOptions): Promise<FetchedFile>;
  /** The size a resource announces (HEAD, one attempt), undefined when it announces none. */
  head(url: string, signal: AbortSignal): Promise<number | undefined>;
  /** Closes pooled connections. */
  close(): Promise<void>;
}

type Scheme = 'http' | 'file';

/** After an abort, callers see the signal's reason (e.g. "session lost"), not a stream's AbortError. */
function abortReasonOr(signal: AbortSignal, err: unknown): never {
  signal.throwIfAborted();
  throw err;
}

function schemeOf(url: string): Scheme {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    const shown = redactUrl(url);
    throw new FetchError('FETCH_REFUSED', shown, `"${shown}" is not a valid URL`);
  }
  if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return 'http';
  if (parsed.protocol === 'file:') return 'file';
  const shown = redactUrl(url);
  throw new FetchError(
    'FETCH_REFUSED',
    shown,
    `${shown}: the scheme "${parsed.protocol}" is not allowed (http, https, file)`,
  );
}

/** Creates a fetcher for the given settings. */
export function createFetcher(settings: FetchSettings): Fetcher {
  const http = createHttpSource(settings);
  const file = createFileSource(settings.roots, settings.maxFileBytes, settings.flushBehind);
  const source = (url: string) => (schemeOf(url) === 'http' ? http : file);

  /** Every fetch is a span (a child of the step's) for its method, with the URL (no credentials), bytes. */
  const traced = <T>(url: string, method: 'GET' | 'HEAD', work: (span?: Span) => Promise<T>): Promise<T> => {
    const name =
      schemeOf(url) === 'http' ? SpanName.http(method) : `file ${method === 'GET' ? 'read' : 'stat'}`;
    const attributes = { [Attr.url]: splitCredentials(url).url, [Attr.httpMethod]: method };
    return withChildSpan(name, attributes, work);
  };

  return {
    async text(url, { signal, maxBytes }) {
      signal.throwIfAborted();
      return traced(url, 'GET', () =>
        source(url)
          .text(url, maxBytes ?? settings.maxManifestBytes, signal)
          .catch((err: unknown) => abortReasonOr(signal, err)),
      );
    },
    async toFile(url, destPath, { signal, expected = {}, createOffLoop = false }) {
      signal.throwIfAborted();
      return traced(url, 'GET', async (span) => {
        const from = source(url);
        const progress = new FileProgress(expected.digest?.algorithm ?? DEFAULT_ALGORITHM);
        const fh = await openFresh(destPath, { offLoop: createOffLoop });
        try {
          await from.fill(url, fh, progress, expected, signal);
          await fh.close();
          const fetched = verify(redactUrl(url), progress, expected);
          span?.setAttribute(Attr.bytesDownloaded, fetched.size);
          return fetched;
        } catch (err) {
          // A partial or wrong file must never be mistaken for the real one.
          await fh.close().catch(() => undefined);
          await rm(destPath, { force: true });
          return abortReasonOr(signal, err);
        }
      });
    },
    async head(url, signal) {
      signal.throwIfAborted();
      return traced(url, 'HEAD', () => (schemeOf(url) === 'http' ? http.head(url, signal) : file.head(url)));
    },
    close: () => http.close(),
  };
}
