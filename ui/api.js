/* global fetch, AbortSignal */
import { getToken } from './token.js';

/** A refused or failed request: the API's status, code and message ({error, message}). */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(`${status} ${code}: ${message}`);
    this.status = status;
    this.code = code;
  }
}

async function failure(res) {
  let body;
  try {
    body = await res.json();
  } catch {
    body = {};
  }
  return new ApiError(res.status, body.error ?? res.statusText, body.message ?? 'the server gave no reason');
}

/** Sent on every call: the API records actions taken from the dashboard as such (audit log). */
const CLIENT = { 'x-mrtq-client': 'dashboard' };

/**
 * How long a request waits for its whole answer. One that never comes fails as an unreachable
 * server does (no status): a page that failed to load is asked again, a refresh goes on at its next
 * turn. Far above the slowest page of a million jobs; a test shortens it (`mrtqAnswerWithinMs`).
 */
const ANSWER_WITHIN_MS = globalThis.mrtqAnswerWithinMs ?? 30_000;

/**
 * `fetch` with the answer's deadline, body included. `unanswered` is what a missed deadline means
 * to the caller: a read is simply asked again, an action may or may not have been taken.
 */
async function request(path, init, read, unanswered = '') {
  try {
    const res = await fetch(path, { ...init, signal: AbortSignal.timeout(ANSWER_WITHIN_MS) });
    if (!res.ok) throw await failure(res);
    return await read(res);
  } catch (err) {
    if (err?.name !== 'TimeoutError') throw err;
    throw new Error(`no answer from the server within ${ANSWER_WITHIN_MS / 1000} s${unanswered}`, {
      cause: err,
    });
  }
}

export function getJson(path) {
  return request(path, { headers: { ...CLIENT, accept: 'application/json' } }, (res) => res.json());
}

export function getText(path) {
  return request(path, { headers: CLIENT }, (res) => res.text());
}

/**
 * Who the entered token is (GET /whoami): `{name, role, collections?}`; an ApiError (401) when
 * the server does not take it.
 */
export async function getWhoami(token) {
  const headers = { ...CLIENT, accept: 'application/json', authorization: `Bearer ${token}` };
  return request('/whoami', { headers }, (res) => res.json());
}

/** A mutating call: the bearer token is sent when one was entered (else the API refuses, 401). */
export async function post(path, body = {}) {
  const headers = { ...CLIENT, accept: 'application/json', 'content-type': 'application/json' };
  const token = getToken();
  if (token) headers.authorization = `Bearer ${token}`;
  // A dry run changes nothing, whatever became of it.
  const unanswered = body.dryRun ? '' : '; it may have been taken: reload the page to see where things stand';
  return request(
    path,
    { method: 'POST', headers, body: JSON.stringify(body) },
    (res) => res.json(),
    unanswered,
  );
}

let lifecycles;

/**
 * The lifecycles the queue runs (GET /lifecycle), read once per page: the job states come from
 * the server's lifecycle, so the pages never spell them out. A failed read is tried again next time.
 */
export function getLifecycles() {
  lifecycles ??= getJson('/lifecycle').catch((err) => {
    lifecycles = undefined;
    throw err;
  });
  return lifecycles;
}

/** The job states in lifecycle order. */
export async function getJobStates() {
  return (await getLifecycles()).job.states.map((s) => s.state);
}

/** The batch statuses a list can be filtered by: the lifecycle's, and `invalid` (unreadable). */
export async function getBatchStatuses() {
  return [...(await getLifecycles()).batch.states.map((s) => s.state), 'invalid'];
}
