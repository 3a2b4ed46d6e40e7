import type { Submission } from '../tree/records.js';

/**
 * Whether this engine can expand a pending batch, from its submission alone. Merritt's ingest
 * writes its own batches (`HandlerSubmit` → mrt-zk `Batch.createBatch`) with the payload on its
 * own disk: the submission names `filename` (in ingest's `queue/<batchID>/`) and has no
 * `payload_url`; Merritt's `BatchConsumer` expands them. This engine's submissions always carry a
 * `payload_url`. A batch the engine cannot expand is left pending for the service that can, with
 * this reason as its status message, instead of being taken and failed.
 */

/** Every reason starts so: the batch is Merritt's ingest's (or another host's) to expand. */
export const LEFT_PENDING = "left pending for Merritt's ingest:";

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

/** Why this engine cannot expand a batch with `submission`, or undefined when it can try. */
export function unexpandableReason(submission: Partial<Submission>): string | undefined {
  const payload = text(submission.payload_url);
  if (payload === undefined) {
    const file = text(submission.filename);
    const dir = text(submission.batchID);
    const where = file
      ? `the file "${file}" in its own queue directory${dir ? ` (queue/${dir})` : ''}`
      : 'no payload';
    return `${LEFT_PENDING} its submission names ${where} and no payload_url, so only the ingest service that wrote it can expand it`;
  }
  // A bare path is a file on the disk of whoever wrote the batch; a URL this engine fetches has a scheme.
  if (payload.startsWith('/'))
    return `${LEFT_PENDING} its payload_url "${payload}" is a path on the disk of the host that wrote it, not a URL this engine can fetch`;
  return undefined;
}
