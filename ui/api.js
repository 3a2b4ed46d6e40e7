/* global fetch */
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

export async function getJson(path) {
  const res = await fetch(path, { headers: { ...CLIENT, accept: 'application/json' } });
  if (!res.ok) throw await failure(res);
  return res.json();
}

export async function getText(path) {
  const res = await fetch(path, { headers: CLIENT });
  if (!res.ok) throw await failure(res);
  return res.text();
}

/**
 * Who the entered token is (GET /whoami): `{name, role, collections?}`; an ApiError (401) when
 * the server does not take it.
 */
export async function getWhoami(token) {
  const headers = { ...CLIENT, accept: 'application/json', authorization: `Bearer ${token}` };
  const res = await fetch('/whoami', { headers });
  if (!res.ok) throw await failure(res);
  return res.json();
}

/** A mutating call: the bearer token is sent when one was entered (else the API refuses, 401). */
export async function post(path, body = {}) {
  const headers = { ...CLIENT, accept: 'application/json', 'content-type': 'application/json' };
  const token = getToken();
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(path, { method: 'POST', headers, body: JSON.stringify(body) });
  if (!res.ok) throw await failure(res);
  return res.json();
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
