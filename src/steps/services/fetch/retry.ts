import { errors } from 'undici';
import { FetchError } from '../../intake-errors.js';
import { withRetry } from '../http-retry.js';

/** undici's timeout codes: connect, waiting for headers, idle body. */
const TIMEOUTS: Readonly<Record<string, string>> = {
  UND_ERR_CONNECT_TIMEOUT: 'connecting',
  UND_ERR_HEADERS_TIMEOUT: 'waiting for the response',
  UND_ERR_BODY_TIMEOUT: 'waiting for data',
};

/** Network failures spelled out for the depositor. */
const NETWORK: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host name lookup failed',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EPIPE: 'connection closed',
  UND_ERR_SOCKET: 'connection closed by the server before the response was complete',
  UND_ERR_RES_CONTENT_LENGTH_MISMATCH: 'connection closed by the server before the whole file arrived',
};

/** TLS verification failures: the server is not trusted here, and trying again will not change that. */
const UNTRUSTED: Readonly<Record<string, string>> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'its certificate is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'its certificate chain ends in a self-signed certificate',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'the issuer of its certificate is not trusted',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'the issuer of its certificate is not trusted',
  UNABLE_TO_GET_ISSUER_CERT: 'the issuer of its certificate is not trusted',
  CERT_HAS_EXPIRED: 'its certificate has expired',
  CERT_NOT_YET_VALID: 'its certificate is not valid yet',
  ERR_TLS_CERT_ALTNAME_INVALID: 'its certificate is for another host name',
};

/** Local file-system failures: ours, not the depositor's, and not made better by trying again. */
const LOCAL = new Set([
  'ENOSPC',
  'EDQUOT',
  'EACCES',
  'EPERM',
  'EROFS',
  'EISDIR',
  'ENOTDIR',
  'EMFILE',
  'ENFILE',
]);

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function lookup(table: Readonly<Record<string, string>>, code: string | undefined): string | undefined {
  return code !== undefined && Object.hasOwn(table, code) ? table[code] : undefined;
}

/**
 * Maps a failed attempt to a FetchError naming the URL (retryable for network errors, broken
 * responses and timeouts; not for a server certificate this machine does not trust). Local disk
 * errors and anything else that is not about the URL are returned as they are, so they are
 * neither retried nor blamed on the depositor.
 */
export function classify(url: string, err: unknown, timeoutMs: number): unknown {
  if (err instanceof FetchError) return err;
  const code = codeOf(err);
  const phase = lookup(TIMEOUTS, code);
  if (phase) {
    return new FetchError('FETCH_TIMEOUT', url, `${url}: timed out after ${timeoutMs} ms ${phase}`, {
      cause: err,
      retryable: true,
    });
  }
  if (code && LOCAL.has(code)) return err;
  const untrusted = lookup(UNTRUSTED, code);
  if (untrusted) {
    // The operator can trust a private CA with NODE_EXTRA_CA_CERTS (read by Node at start-up).
    const text = `${url}: the server is not trusted: ${untrusted} (a private CA goes in NODE_EXTRA_CA_CERTS)`;
    return new FetchError('FETCH_NETWORK', url, text, { cause: err });
  }
  if (err instanceof errors.HTTPParserError) {
    // Mostly a body the connection's end cut short (a chunked one, or one on a kept-alive connection).
    const text = `${url}: the response broke off or is not valid HTTP (${err.message})`;
    return new FetchError('FETCH_NETWORK', url, text, { cause: err, retryable: true });
  }
  if (code || err instanceof TypeError) {
    const what = lookup(NETWORK, code) ?? (err instanceof Error ? err.message : String(err));
    return new FetchError('FETCH_NETWORK', url, `${url}: ${what}`, { cause: err, retryable: true });
  }
  return err;
}

/** The longest wait between two attempts. */
const MAX_DELAY_MS = 30_000;

/** What {@link withRetries} needs: the URL for messages, the retry settings, the abort signal. */
export interface RetryOptions {
  url: string;
  retries: number;
  retryBaseMs: number;
  timeoutMs: number;
  signal: AbortSignal;
}

function gaveUp(err: FetchError, attempts: number): FetchError {
  if (attempts === 1) return err;
  return new FetchError(err.code, err.url, `${err.message} (gave up after ${attempts} attempts)`, {
    cause: err.cause,
    status: err.status,
    attempts,
  });
}

/**
 * Runs `attempt` until it succeeds, fails for good (not retryable: 4xx, mismatch, too large),
 * or `retries` more attempts have failed, waiting `retryBaseMs` doubled per attempt (capped at
 * 30 s, with jitter: half to all of it). An abort ends it at once with the signal's reason.
 */
export function withRetries<T>(options: RetryOptions, attempt: (n: number) => Promise<T>): Promise<T> {
  return withRetry(
    {
      retries: options.retries,
      delayMs: options.retryBaseMs,
      maxDelayMs: MAX_DELAY_MS,
      jitter: true,
      signal: options.signal,
      retryable: (failure) => failure instanceof FetchError && failure.retryable,
      gaveUp: (failure, attempts) => (failure instanceof FetchError ? gaveUp(failure, attempts) : failure),
    },
    async (n) => {
      try {
        return await attempt(n);
      } catch (err) {
        throw classify(options.url, err, options.timeoutMs);
      }
    },
  );
}
