import { sleep } from '../../abortable-sleep.js';
import { ezidBody, type EzidMetadata } from '../../formats/anvl.js';
import { withRetry } from '../http-retry.js';
import type { MintRequest, Minter } from './port.js';
import { assertArk } from '../../workdir/files.js';
import { OutputError } from '../../output-errors.js';
import { displayUrl, excerpt, httpCall, type HttpAnswer } from '../http-client.js';

/**
 * An EZID client as Merritt's ingest uses it (merritt-protocols.md §3, `MintUtil`):
 * - mint: `POST {shoulder URL}` with the ANVL body (anvl.ts), answered `success: ark:/…`;
 * - update (after every mint, and for a given or found ark): `POST {URL with /shoulder… → /id/}{ark}`
 *   with the same body; an answer other than `success:` is followed, after a pause, by
 *   `PUT …/id/{ark}?update_if_exists=yes`.
 * Every request is sent up to 3 times while EZID cannot be reached (5 s apart); a mint answered
 * with anything but `success:` is sent twice more (15 s apart), stopping at an answer below 400.
 * Basic auth from `credentials` (`user:password`) or from `user:pw@` in the URL.
 */
export interface EzidOptions {
  /** The shoulder's mint URL, e.g. `https://ezid.example/shoulder/ark:/99999/fk4`. */
  url: string;
  /** `user:password` (MRTQ_EZID_CREDENTIALS); credentials in the URL are used when absent. */
  credentials?: string;
  /** Base of the `_target` EZID resolves an ark to (`{targetUrl}/m/{ark}`); absent: none sent. */
  targetUrl?: string;
  timeoutMs?: number;
  /** Attempts while EZID cannot be reached (default 3), and the pause between them (default 5 s). */
  connectAttempts?: number;
  connectRetryMs?: number;
  /** Further mints after an answer that is not `success:` (default 2), and their pause (default 15 s). */
  mintRetries?: number;
  mintRetryMs?: number;
  /** Pause before the `PUT … update_if_exists` fallback of an update (default 15 s). */
  updateFallbackMs?: number;
}

/** The options with Merritt's values where none are given. */
type Settled = Required<Omit<EzidOptions, 'credentials' | 'targetUrl'>> & EzidOptions;

const DEFAULTS = {
  timeoutMs: 60_000,
  connectAttempts: 3,
  connectRetryMs: 5_000,
  mintRetries: 2,
  mintRetryMs: 15_000,
  updateFallbackMs: 15_000,
};

const SUCCESS = 'success:';

/** Parses an EZID answer: `success: ark:/…` (possibly followed by ` | …`), else undefined. */
export function parseMintAnswer(text: string): string | undefined {
  const match = /^success:\s*(\S+)/.exec(text.trim());
  if (!match?.[1]) return undefined;
  try {
    return assertArk(match[1]);
  } catch {
    return undefined;
  }
}

function authorization(credentials: string | undefined): Record<string, string> {
  if (!credentials) return {};
  return { authorization: `Basic ${Buffer.from(credentials).toString('base64')}` };
}

/** `https://ezid/shoulder/ark:/99999/fk4` → `https://ezid/id/{ark}` (`replaceFirst("/shoulder.*", "/id/")`). */
export function ezidUpdateUrl(shoulderUrl: string, ark: string): string {
  return `${shoulderUrl.replace(/\/shoulder.*/, '/id/')}${ark}`;
}

function failure(message: string, answer?: HttpAnswer, cause?: unknown): OutputError {
  const hint = answer?.status === 401 ? ' (check MRTQ_EZID_CREDENTIALS)' : '';
  const said = answer ? ` answered ${answer.status} "${excerpt(answer.text)}"${hint}` : '';
  return new OutputError('MINT_FAILED', `${message}${said}`, {
    cause,
    retryable: answer === undefined || answer.status >= 500 || answer.status === 429,
  });
}

/** A mint EZID answered with something other than `success:`. */
class NotMinted extends Error {
  constructor(readonly answer: HttpAnswer) {
    super(`not minted: ${answer.status}`);
  }
}

function settle(options: EzidOptions): Settled {
  return { ...DEFAULTS, ...options };
}

/** Builds the EZID minter; `mint` and `update` take the job's metadata (MintRequest). */
export function createEzidMinter(options: EzidOptions): Minter {
  const o = settle(options);
  const shown = displayUrl(o.url);
  const metadata = (request: MintRequest | undefined, ark?: string): EzidMetadata => ({
    erc: request?.erc ?? {},
    localIds: request?.localIds ?? [],
    ...(ark ? { ark } : {}),
    ...(request?.profile ? { profile: request.profile } : {}),
    ...(o.targetUrl ? { targetUrl: o.targetUrl } : {}),
    ...(request?.retainTargetUrl ? { retainTargetUrl: true } : {}),
  });

  const once = (url: string, method: 'POST' | 'PUT', body: string, signal: AbortSignal) =>
    httpCall({
      url,
      method,
      headers: { 'content-type': 'text/plain; charset=UTF-8', ...authorization(o.credentials) },
      body,
      timeoutMs: o.timeoutMs,
      signal,
    });

  /** One request, sent again while EZID cannot be reached (every answer counts). */
  function send(url: string, method: 'POST' | 'PUT', body: string, signal: AbortSignal) {
    const unreachable = (err: unknown, attempts: number) => {
      const why = err instanceof Error ? err.message : String(err);
      return failure(
        `EZID ${displayUrl(url)} unreachable after ${attempts} attempts: ${why}`,
        undefined,
        err,
      );
    };
    const policy = { retries: o.connectAttempts - 1, delayMs: o.connectRetryMs, factor: 1 };
    return withRetry({ ...policy, signal, retryable: () => true, gaveUp: unreachable }, () =>
      once(url, method, body, signal),
    );
  }

  /**
   * A mint answered with anything but `success:` is sent again (MintUtil): after the first
   * answer whatever it was, after a later one only while EZID answers 400 or more.
   */
  function mintRetrying(body: string, signal: AbortSignal) {
    const policy = { retries: o.mintRetries, delayMs: o.mintRetryMs, factor: 1 };
    return withRetry(
      {
        ...policy,
        signal,
        retryable: (err, attempt) => err instanceof NotMinted && (attempt === 1 || err.answer.status >= 400),
        gaveUp: (err) =>
          err instanceof NotMinted ? failure(`EZID ${shown} minted no ark:`, err.answer) : err,
      },
      async () => {
        const answer = await send(o.url, 'POST', body, signal);
        if (answer.text.startsWith(SUCCESS)) return answer;
        throw new NotMinted(answer);
      },
    );
  }

  return {
    async mint(signal: AbortSignal, request?: MintRequest): Promise<string> {
      const answer = await mintRetrying(ezidBody(metadata(request)), signal);
      const ark = parseMintAnswer(answer.text);
      if (ark) return ark;
      throw failure(`EZID ${shown} minted no ark:`, answer);
    },

    async update(ark: string, request: MintRequest, signal: AbortSignal): Promise<void> {
      const url = ezidUpdateUrl(o.url, ark);
      const body = ezidBody(metadata(request, ark));
      const answer = await send(url, 'POST', body, signal);
      if (answer.text.startsWith(SUCCESS)) return;
      await sleep(o.updateFallbackMs, signal);
      const put = `${url}?update_if_exists=yes`;
      const fallback = await send(put, 'PUT', body, signal);
      if (fallback.text.startsWith(SUCCESS)) return;
      throw failure(`EZID could not update ${ark}: ${displayUrl(put)}`, fallback);
    },
  };
}
