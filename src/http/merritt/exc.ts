import { toHttpError } from '../errors.js';
import type { StateDocument } from './format.js';

/**
 * Merritt's error answers: mrt-core's `TException` as its XML formatter writes it (mrt-core2
 * `utility/TException`, `TExceptionEnum`; `exc` = `…/core/exc` in `XMLManifestNS.txt`), the
 * root named after the exception's class (`exc:tException.REQUEST_INVALID`). Merritt's UI reads
 * `exc:statusDescription` and `exc:error` (mrt-dashboard `ingest_mixin.rb`).
 */

/** `TExceptionEnum`: the description and HTTP status of each name this server answers with. */
export const TEXCEPTIONS = {
  REQUEST_INVALID: { description: 'User/request supplied required parm is missing or invalid', status: 400 },
  REQUEST_ELEMENT_UNSUPPORTED: {
    description: 'User/request supplied parm type is not supported',
    status: 501,
  },
  USER_NOT_AUTHORIZED: { description: 'User not authorized', status: 401 },
  USER_NOT_AUTHENTICATED: { description: 'User not authenticated', status: 401 },
  INVALID_OR_MISSING_PARM: { description: 'Program required parm is missing or invalid', status: 500 },
  GENERAL_EXCEPTION: { description: 'Unexpected Programmic exception', status: 500 },
  EXTERNAL_SERVICE_UNAVAILABLE: { description: 'Unavailable remote service', status: 503 },
  REQUESTED_ITEM_NOT_FOUND: { description: 'Request contains element that cannot be located', status: 404 },
  CONCURRENT_UPDATE: { description: 'Concurrent update of same Version', status: 500 },
} as const;

export type TExceptionName = keyof typeof TEXCEPTIONS;

/** An error answered as an `exc:` document: Merritt's status name, the HTTP status, what went wrong. */
export class MerrittError extends Error {
  readonly httpStatus: number;
  readonly headers: Readonly<Record<string, string | string[]>>;

  constructor(
    readonly statusName: TExceptionName,
    readonly detail: string,
    options: { httpStatus?: number; headers?: Readonly<Record<string, string | string[]>> } = {},
  ) {
    super(detail);
    this.name = 'MerrittError';
    this.httpStatus = options.httpStatus ?? TEXCEPTIONS[statusName].status;
    this.headers = options.headers ?? {};
  }
}

/** The name an HTTP status of this API's own errors is answered under. */
function nameOfStatus(status: number): TExceptionName {
  if (status === 401) return 'USER_NOT_AUTHENTICATED';
  if (status === 403) return 'USER_NOT_AUTHORIZED';
  if (status === 404) return 'REQUESTED_ITEM_NOT_FOUND';
  if (status === 409) return 'CONCURRENT_UPDATE';
  if (status === 501) return 'REQUEST_ELEMENT_UNSUPPORTED';
  if (status === 503) return 'EXTERNAL_SERVICE_UNAVAILABLE';
  if (status >= 400 && status < 500) return 'REQUEST_INVALID';
  return 'GENERAL_EXCEPTION';
}

/**
 * Any error as a MerrittError: its own, else the API's one mapping (toHttpError: the same status
 * and message any other route would answer), named by its status. `internal` marks errors whose
 * cause is hidden from the client (logged instead).
 */
export function merrittErrorOf(err: unknown): { error: MerrittError; internal: boolean } {
  if (err instanceof MerrittError) return { error: err, internal: false };
  const answer = toHttpError(err);
  const error = new MerrittError(nameOfStatus(answer.status), answer.body.message, {
    httpStatus: answer.status,
    headers: answer.headers ?? {},
  });
  return { error, internal: answer.internal === true };
}

/** The `exc:` document of `error`: the getters `TException` is formatted by, less its Java stack. */
export function excDocument(error: MerrittError): StateDocument {
  const description = TEXCEPTIONS[error.statusName].description;
  return {
    root: `tException.${error.statusName}`,
    prefix: 'exc',
    namespace: 'http://uc3.cdlib.org/ontology/mrt/core/exc',
    children: [
      { name: 'status', value: error.statusName },
      { name: 'statusName', value: error.statusName },
      { name: 'statusDescription', value: description },
      { name: 'hTTPResponse', value: error.httpStatus },
      { name: 'error', value: `${error.statusName}[${description}] ${error.detail}` },
      { name: 'description', value: description },
      { name: 'detail', value: error.detail },
    ],
  };
}
