import { isQueueError } from '../../queue/tree/errors.js';
import type { FailureClass } from '../../queue/jobs/retry-record.js';
import { isZkError } from '../../zk/index.js';

/** How a step failure is classified, and the short stable name it is recorded and counted under. */
export interface Classified {
  class: FailureClass;
  code: string;
}

/** Socket and name-resolution failures: the other end may answer next time. */
const TRANSIENT_SYSTEM_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'ENOSPC',
  'EMFILE',
  'ENFILE',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/** Codes of this engine's own errors that another attempt may pass (besides their `retryable` flag). */
const TRANSIENT_CODES = new Set(['FETCH_NETWORK', 'FETCH_TIMEOUT', 'OBJECT_LOCKED']);

/** The error and its causes, outermost first (a cycle is cut). */
function chain(err: unknown): unknown[] {
  const seen: unknown[] = [];
  for (let current = err; current !== undefined && current !== null && !seen.includes(current);) {
    seen.push(current);
    current = typeof current === 'object' ? (current as { cause?: unknown }).cause : undefined;
  }
  return seen;
}

const field = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;

/** An HTTP status the failure carries (a FetchError's `status`, an answer's). */
function httpStatusOf(err: unknown): number | undefined {
  for (const link of chain(err)) {
    const status = field(link, 'status') ?? field(link, 'statusCode');
    if (typeof status === 'number' && status >= 100 && status < 600) return status;
  }
  return undefined;
}

/**
 * Classifies a step's failure (issue 34; docs/engine.md, "Retry policies"):
 * - **transient** (another attempt may pass): connection refused or reset and other socket
 *   errors, timeouts, HTTP 408, 429 and 5xx, ZooKeeper unavailable, no space left, an object
 *   lock held elsewhere, and any error of this engine marked `retryable`;
 * - **permanent** (it will not): digest or size mismatch, a bad manifest, other HTTP 4xx, a
 *   refused container or profile, a lifecycle refusal, and anything not known to be transient,
 *   which fails as it always did.
 * The code is the most specific name found: `HTTP_503`, `ECONNRESET`, `DIGEST_MISMATCH`…
 */
export function classifyFailure(err: unknown): Classified {
  const links = chain(err);
  const status = httpStatusOf(err);
  const codeOf = (link: unknown): string | undefined => {
    const code = field(link, 'code');
    return typeof code === 'string' ? code : undefined;
  };
  const firstCode = links.map(codeOf).find((code) => code !== undefined);
  if (isQueueError(err, 'INVALID_TRANSITION')) return { class: 'permanent', code: 'INVALID_TRANSITION' };
  if (status !== undefined) {
    const transient = status === 408 || status === 429 || status >= 500;
    return { class: transient ? 'transient' : 'permanent', code: `HTTP_${status}` };
  }
  for (const link of links) {
    if (isZkError(link) && (link.retryable || link.kind === 'CLOSED'))
      return { class: 'transient', code: `ZK_${link.kind}` };
    const code = codeOf(link);
    if (code !== undefined && TRANSIENT_SYSTEM_CODES.has(code)) return { class: 'transient', code };
    const name = field(link, 'name');
    if (name === 'TimeoutError' || name === 'AbortError' || name === 'ConnectTimeoutError')
      return { class: 'transient', code: 'TIMEOUT' };
  }
  const outer = links[0];
  if (field(outer, 'retryable') === true || (firstCode !== undefined && TRANSIENT_CODES.has(firstCode)))
    return { class: 'transient', code: firstCode ?? 'RETRYABLE' };
  return { class: 'permanent', code: firstCode ?? 'ERROR' };
}
