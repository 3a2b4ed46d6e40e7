import { merrittDate, type StateDocument, type StateNode } from './format.js';

/**
 * The state documents Merritt's ingest answers with, built as mrt-core's formatter builds them
 * from the state classes' public getters (`grab…` ones are left out; null values are left out).
 */

/** What a submission's answer says about its batch. */
export interface SubmittedBatch {
  /** Merritt's `bid-<uuid>`: the batch's uuid in this engine (`/batch-uuids/<uuid>`). */
  batchID: string;
  /** The uploaded file's name (`filename`, else the file part's own). */
  packageName?: string;
  /** The submitter (`submitter`). */
  userAgent: string;
  submissionDate: Date;
}

const present = (name: string, value: string | undefined): StateNode[] =>
  value === undefined || value === '' ? [] : [{ name, value }];

/**
 * `bat:batchState` of a batch just queued (mrt-ingest `BatchState`, as `BatchManager.submit`
 * fills it): its id, package name, user agent, submission date, status QUEUED and the job states,
 * empty at submission (jobs are made later, by the batch's expansion), written as one empty
 * `bat:jobStates`.
 */
export function batchStateDocument(batch: SubmittedBatch): StateDocument {
  return {
    root: 'batchState',
    prefix: 'bat',
    namespace: 'http://uc3.cdlib.org/ontology/mrt/ingest/batch',
    children: [
      { name: 'batchID', value: batch.batchID },
      ...present('packageName', batch.packageName),
      { name: 'userAgent', value: batch.userAgent },
      { name: 'submissionDate', value: merrittDate(batch.submissionDate) },
      { name: 'batchStatus', value: 'QUEUED' },
      { name: 'jobStates', children: [] },
    ],
  };
}

/** What `GET /state` reports of this service. */
export interface ServiceState {
  version: string;
  /** True when the ingest queue is paused (`/locks/queue/ingest`): Merritt's "frozen". */
  frozen: boolean;
  /** Collections on hold (`/locks/collections`). */
  heldCollections: readonly string[];
}

/**
 * `ing:ingestServiceState` (mrt-ingest `IngestServiceState`): the service's name, id and version,
 * and `submissionState` `frozen` or `thawed`, which Merritt's admin tool reads; held collections
 * in `collectionSubmissionState` (Merritt leaves it out; here when any is held).
 */
export function serviceStateDocument(state: ServiceState): StateDocument {
  return {
    root: 'ingestServiceState',
    prefix: 'ing',
    namespace: 'http://uc3.cdlib.org/ontology/mrt/ingest/single',
    children: [
      { name: 'serviceName', value: 'mrtq' },
      { name: 'serviceID', value: 'mrtq' },
      { name: 'serviceVersion', value: `mrtq/${state.version}` },
      { name: 'submissionState', value: state.frozen ? 'frozen' : 'thawed' },
      ...present('collectionSubmissionState', state.heldCollections.join(',')),
    ],
  };
}
