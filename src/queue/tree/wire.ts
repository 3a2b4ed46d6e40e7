import {
  batchWireNames,
  parseBatchState,
  type BatchState,
  type JobLifecycle,
} from '../../../machines/index.js';
import { QueueError } from './errors.js';
import { formatTimestamp } from './timestamps.js';

/**
 * Encoding and tolerant decoding of the queue's node data (DESIGN.md §2). Writers are exact
 * (mrt-zk's key names and capitalised status names); readers accept any case, missing optional
 * keys, and report anything else as ITEM_INVALID naming the node.
 */

/** `/jobs/JID/status` as stored. */
export interface JobStatusData {
  /** A state of the queue's job lifecycle. */
  status: string;
  lastSuccessfulStatus: string | null;
  lastModified: string;
  retryCount: number;
  message: string | null;
}

/** `/batches/BID/status` as stored. */
export interface BatchStatusData {
  status: BatchState;
  lastModified: string;
  message: string | null;
  /**
   * Where this engine's expansion of the batch stands, in keys added to mrt-zk's (its readers
   * ignore them): `expansion: "started"` from the moment this engine acquires the batch, then
   * `job_count` once every job exists. A processing batch without either was expanded by another
   * tool (mrt-zk expands while holding the batch lock, so once unlocked its jobs all exist).
   */
  expansion: BatchExpansion;
  /** Jobs the expansion created (`job_count`), once it is done. */
  jobCount: number | undefined;
  /**
   * Trace context of a batch whose submission has none (written by another tool): set when this
   * engine first acquires it, so its work still forms one trace.
   */
  traceparent?: string;
}

/** See {@link BatchStatusData.expansion}. */
export type BatchExpansion = 'started' | 'done' | 'foreign';

export function encodeJson(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value), 'utf8');
}

export function encodeText(value: string | number): Buffer {
  return Buffer.from(String(value), 'utf8');
}

export function encodeJobStatus(
  status: Omit<JobStatusData, 'lastModified'>,
  now: Date,
  lifecycle: JobLifecycle,
): Buffer {
  const last = status.lastSuccessfulStatus;
  const data: Record<string, unknown> = {
    status: lifecycle.wireName(status.status),
    // A last success this lifecycle does not know (written by another tool) is kept as it was.
    last_successful_status: last === null ? null : lifecycle.isState(last) ? lifecycle.wireName(last) : last,
    last_modified: formatTimestamp(now),
    retry_count: status.retryCount,
  };
  if (status.message) data.message = status.message;
  return encodeJson(data);
}

export function encodeBatchStatus(status: Omit<BatchStatusData, 'lastModified'>, now: Date): Buffer {
  const data: Record<string, unknown> = {
    status: batchWireNames[status.status],
    last_modified: formatTimestamp(now),
  };
  if (status.message) data.message = status.message;
  if (status.expansion === 'started') data.expansion = 'started';
  if (status.expansion === 'done') data.job_count = status.jobCount ?? 0;
  if (status.traceparent) data.traceparent = status.traceparent;
  return encodeJson(data);
}

/** Parses a JSON object node; ITEM_INVALID naming the path when it is missing, not JSON, or not an object. */
export function decodeJsonObject(path: string, data: Buffer | undefined): Record<string, unknown> {
  const text = data?.toString('utf8') ?? '';
  if (text.trim() === '') throw new QueueError('ITEM_INVALID', `${path} is empty (expected JSON)`, path);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    const shown = text.length > 80 ? `${text.slice(0, 77)}...` : text;
    throw new QueueError('ITEM_INVALID', `${path} is not valid JSON: ${shown}`, path, { cause: err });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new QueueError('ITEM_INVALID', `${path} is not a JSON object`, path);
  }
  return value as Record<string, unknown>;
}

function optionalString(value: unknown): string | null {
  return typeof value === 'string' && value !== '' ? value : null;
}

export function decodeJobStatus(
  path: string,
  data: Buffer | undefined,
  lifecycle: JobLifecycle,
): JobStatusData {
  const json = decodeJsonObject(path, data);
  const status = typeof json.status === 'string' ? lifecycle.parse(json.status) : undefined;
  if (!status)
    throw new QueueError(
      'ITEM_INVALID',
      `${path} has unknown job status ${JSON.stringify(json.status)}`,
      path,
    );
  const last = optionalString(json.last_successful_status);
  // A last success the lifecycle does not know (Java's mrt-zk writes "Failed" after a requeue)
  // is kept as written: it only decides where a requeue resumes, which then refuses it.
  const lastSuccessfulStatus = last === null ? null : (lifecycle.parse(last) ?? last);
  const retry = Number(json.retry_count ?? 0);
  return {
    status,
    lastSuccessfulStatus,
    lastModified: optionalString(json.last_modified) ?? '',
    retryCount: Number.isInteger(retry) && retry >= 0 ? retry : 0,
    message: optionalString(json.message),
  };
}

export function decodeBatchStatus(path: string, data: Buffer | undefined): BatchStatusData {
  const json = decodeJsonObject(path, data);
  const status = typeof json.status === 'string' ? parseBatchState(json.status) : undefined;
  if (!status)
    throw new QueueError(
      'ITEM_INVALID',
      `${path} has unknown batch status ${JSON.stringify(json.status)}`,
      path,
    );
  const jobCount =
    typeof json.job_count === 'number' && Number.isInteger(json.job_count) && json.job_count >= 0
      ? json.job_count
      : undefined;
  const expansion: BatchExpansion =
    jobCount !== undefined ? 'done' : json.expansion === 'started' ? 'started' : 'foreign';
  return {
    status,
    lastModified: optionalString(json.last_modified) ?? '',
    message: optionalString(json.message),
    expansion,
    jobCount,
    traceparent: optionalString(json.traceparent) ?? undefined,
  };
}

/** Integer text nodes (`priority`, `space_needed`); `fallback` when missing or empty, ITEM_INVALID when not a number. */
export function decodeInteger(path: string, data: Buffer | undefined, fallback: number): number {
  const text = data?.toString('utf8').trim() ?? '';
  if (text === '') return fallback;
  const value = Number(text);
  if (!Number.isSafeInteger(value))
    throw new QueueError('ITEM_INVALID', `${path} is not an integer: "${text}"`, path);
  return value;
}

export function decodeText(data: Buffer | undefined): string {
  return data?.toString('utf8').trim() ?? '';
}
