import type { IncomingMessage, ServerResponse } from 'node:http';
import { bytes, type Handler } from '../http-fixtures.js';
import type { ChaosProfile } from './profile.js';

/**
 * How a depositor's file server answers the GETs of one file (scenario 4). Whether the download
 * recovers follows from the behaviour and the fetch budget alone, so the test knows each job's
 * terminal state before it runs.
 */
export const BEHAVIOURS = ['ok', 'flaky', 'stall', 'hang-once', 'slow', 'missing', 'broken', 'dead'] as const;
export type Behaviour = (typeof BEHAVIOURS)[number];

/** Seeded mix: mostly recoverable trouble, some for good. */
const WEIGHTS: Readonly<Record<Behaviour, number>> = {
  ok: 3,
  flaky: 3,
  stall: 2,
  'hang-once': 2,
  slow: 2,
  missing: 1,
  broken: 1,
  dead: 1,
};

export function pickBehaviour(profile: ChaosProfile): Behaviour {
  return profile.pick(BEHAVIOURS.flatMap((b) => Array<Behaviour>(WEIGHTS[b]).fill(b)));
}

/** The download of a file behaving so succeeds within the retry budget (and the job completes). */
export function recovers(behaviour: Behaviour): boolean {
  return behaviour !== 'missing' && behaviour !== 'broken' && behaviour !== 'dead';
}

/** The fetch settings the engines run with (MRTQ_FETCH_TIMEOUT_MS, MRTQ_FETCH_RETRIES). */
export interface FetchBudget {
  timeoutMs: number;
  retries: number;
}

/** What a job failed by `behaviour` must say besides the file's URL. */
export function expectedReason(behaviour: Behaviour, budget: FetchBudget): RegExp | undefined {
  const attempts = `gave up after ${budget.retries + 1} attempts`;
  if (behaviour === 'missing') return /HTTP 404 Not Found/;
  if (behaviour === 'broken') return new RegExp(`HTTP 500 .*${attempts}`);
  if (behaviour === 'dead') return new RegExp(`timed out after ${budget.timeoutMs} ms .*${attempts}`);
  return undefined;
}

/** Slow and failing answers the file servers gave, for the summary line. */
export interface DependencyTally {
  /** 500s answered (intermittent and permanent). */
  errors5xx: number;
  notFound: number;
  /** Responses that sent part of the body and then stalled past the timeout. */
  stalled: number;
  /** Requests never answered (timed out waiting for headers). */
  hung: number;
  /** Bodies sent slowly, in pauses shorter than the timeout. */
  trickled: number;
  callbackFailures: number;
  callbackOk: number;
}

export const emptyTally = (): DependencyTally => ({
  errors5xx: 0,
  notFound: 0,
  stalled: 0,
  hung: 0,
  trickled: 0,
  callbackFailures: 0,
  callbackOk: 0,
});

/** Headers and the first `cutAt` bytes, then silence (the connection stays open). */
function stallOnce(data: Buffer, cutAt: number, then: Handler, tally: DependencyTally): Handler {
  let stalled = false;
  return (req, res) => {
    if (stalled) return then(req, res);
    stalled = true;
    tally.stalled++;
    res.writeHead(200, { etag: '"v1"', 'content-length': data.length, 'accept-ranges': 'bytes' });
    res.write(data.subarray(0, cutAt));
  };
}

/** The whole body in `chunks` parts, `gapMs` apart (each pause shorter than the idle timeout). */
function trickle(data: Buffer, chunks: number, gapMs: number, tally: DependencyTally): Handler {
  return (_req, res) => {
    tally.trickled++;
    res.writeHead(200, { 'content-length': data.length });
    const size = Math.ceil(data.length / chunks);
    const send = (from: number): void => {
      if (res.destroyed) return;
      if (from >= data.length) return void res.end();
      res.write(data.subarray(from, from + size));
      setTimeout(() => send(from + size), gapMs);
    };
    send(0);
  };
}

function status(code: number, times: number, then: Handler, count: () => void): Handler {
  let seen = 0;
  return (req, res) => {
    seen++;
    if (seen > times) return then(req, res);
    count();
    res.writeHead(code).end(`failure ${seen}`);
  };
}

function hang(times: number, then: Handler, tally: DependencyTally): Handler {
  let seen = 0;
  return (req, res) => {
    seen++;
    if (seen > times) return then(req, res);
    tally.hung++;
  };
}

/**
 * The handler serving `data` as `behaviour` says. `flakyFailures` (≤ retries) is how many 500s a
 * flaky file answers before it serves the file.
 */
export function behaving(
  behaviour: Behaviour,
  data: Buffer,
  budget: FetchBudget,
  tally: DependencyTally,
  flakyFailures: number,
): Handler {
  const good = bytes(data, { etag: '"v1"' });
  const forever = Number.POSITIVE_INFINITY;
  switch (behaviour) {
    case 'ok':
      return good;
    case 'flaky':
      return status(500, flakyFailures, good, () => tally.errors5xx++);
    case 'stall':
      return stallOnce(data, Math.floor(data.length / 2), good, tally);
    case 'hang-once':
      return hang(1, good, tally);
    case 'slow':
      return trickle(data, 4, Math.floor(budget.timeoutMs / 4), tally);
    case 'missing':
      return status(404, forever, good, () => tally.notFound++);
    case 'broken':
      return status(500, forever, good, () => tally.errors5xx++);
    case 'dead':
      return hang(forever, good, tally);
  }
}

/** Outages of a callback endpoint: down for `downMs`, then up for `upMs`, from its first request. */
export interface Outages {
  downMs: number;
  upMs: number;
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * A depositor's callback endpoint that answers 503 during outages and 200 otherwise, keeping the
 * job ids it was told about. The notify step retries after 1, 2 and 4 s: with outages of at most
 * 3 s and at least 8 s between them, no job's four attempts can all fall into outages.
 */
export function flakyCallback(
  outages: Outages,
  tally: DependencyTally,
): {
  handler: Handler;
  notified: Set<string>;
} {
  const notified = new Set<string>();
  let firstAt: number | undefined;
  const handler = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const body = await bodyOf(req);
    firstAt ??= Date.now();
    const down = (Date.now() - firstAt) % (outages.downMs + outages.upMs) < outages.downMs;
    if (down) {
      tally.callbackFailures++;
      return void res.writeHead(503).end('callback receiver down');
    }
    tally.callbackOk++;
    // Merritt's callback body (merritt-protocols.md §4): `{"job:jobState":{"job:jobID":…}}`.
    const state = (JSON.parse(body) as { 'job:jobState'?: { 'job:jobID'?: unknown } })['job:jobState'];
    const jobId = state?.['job:jobID'];
    if (typeof jobId === 'string') notified.add(jobId);
    res.writeHead(200).end('ok');
  };
  return { handler, notified };
}
