import { readFile } from '../fs/calls.js';
import { join, resolve } from 'node:path';
import type { JobRecord } from '../../queue/jobs/load.js';
import { workDirOf, type DownloadedFile, type DownloadRecord } from '../ingest-contracts.js';
import type { IngestSettings } from '../../config/ingest-settings.js';
import { OutputError } from '../output-errors.js';
import { assertArk, isBelow, readJsonIfPresent, writeFileAtomic } from './files.js';
import { DIGEST_ALGORITHMS } from '../formats/digest.js';

/**
 * What the output steps read from and leave in a job's working directory. Besides the
 * contract's `download.json`, processing keeps two bookkeeping files in `system/` (never stored):
 * `ark.txt`, the ark it minted, written before anything uses it so a re-run mints no second
 * one; and `storage.json`, the stored version recording and notify work from.
 */

export const DOWNLOAD_RECORD = 'download.json';
export const ARK_FILE = 'system/ark.txt';
export const STORAGE_RECORD = 'system/storage.json';

/** What processing stored, for recording and notify. */
export interface StoredVersion {
  ark: string;
  version: number;
  manifestUrl: string;
}

/**
 * A job's working directory: its configured `working_dir`, else `<workRoot>/<bid>/<jid>`. Refused
 * when it is not inside `workRoot`, so a tampered configuration cannot point the steps (and the
 * completed step's removal) at another directory.
 */
export function jobWorkDir(settings: Pick<IngestSettings, 'workRoot'>, job: JobRecord): string {
  const configured = job.configuration.working_dir;
  const dir =
    typeof configured === 'string' && configured
      ? configured
      : workDirOf(settings.workRoot, job.batchId, job.jobId);
  if (!isBelow(settings.workRoot, dir)) {
    throw new OutputError(
      'WORKDIR_INVALID',
      `job ${job.jobId}: working directory ${dir} is not inside ${settings.workRoot}`,
    );
  }
  return resolve(dir);
}

const HEX = /^[0-9a-f]+$/i;
const ALGORITHMS: ReadonlySet<string> = new Set(DIGEST_ALGORITHMS);

function isDownloadedFile(value: unknown): value is DownloadedFile {
  const file = value as Partial<DownloadedFile> | null;
  return (
    typeof file?.path === 'string' &&
    file.path.startsWith('producer/') &&
    !file.path.split('/').some((s) => s === '..' || s === '.' || s === '') &&
    Number.isSafeInteger(file.size) &&
    file.size! >= 0 &&
    ALGORITHMS.has(file.digest?.algorithm ?? '') &&
    HEX.test(file.digest?.value ?? '')
  );
}

/** Reads and checks `download.json`: every file under `producer/` with a size and a digest. */
export async function readDownloadRecord(workDir: string): Promise<DownloadRecord> {
  const path = join(workDir, DOWNLOAD_RECORD);
  let record: Partial<DownloadRecord> | undefined;
  try {
    record = (await readJsonIfPresent(path)) as Partial<DownloadRecord> | undefined;
  } catch (err) {
    throw new OutputError('WORKDIR_INVALID', `${path} is not JSON`, { cause: err });
  }
  if (!record) {
    throw new OutputError(
      'WORKDIR_INVALID',
      `${path} is missing: the job was not downloaded (requeue from downloading)`,
    );
  }
  const bad = Array.isArray(record.files)
    ? record.files.find((f) => !isDownloadedFile(f))
    : { files: record.files };
  if (bad !== undefined || typeof record.object !== 'object' || record.object === null) {
    const shown = JSON.stringify(bad ?? { object: record.object }) ?? 'undefined';
    throw new OutputError('WORKDIR_INVALID', `${path}: unusable entry ${shown.slice(0, 300)}`);
  }
  return { files: record.files!, object: { ...record.object, erc: record.object.erc ?? {} } };
}

/** The ark an earlier run of processing minted for this job, if any. */
export async function readPersistedArk(workDir: string): Promise<string | undefined> {
  try {
    const text = (await readFile(join(workDir, ARK_FILE), 'utf8')).trim();
    return text ? assertArk(text) : undefined;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** Keeps a minted ark in the working directory (atomically) before anything uses it. */
export const persistArk = (workDir: string, ark: string): Promise<void> =>
  writeFileAtomic(join(workDir, ARK_FILE), `${ark}\n`);

/** Records the stored version for recording and notify. */
export const writeStoredVersion = (workDir: string, stored: StoredVersion): Promise<void> =>
  writeFileAtomic(join(workDir, STORAGE_RECORD), `${JSON.stringify(stored)}\n`, { durable: false });

/** The version processing stored; undefined when processing has not stored one. */
export async function readStoredVersion(workDir: string): Promise<StoredVersion | undefined> {
  const stored = (await readJsonIfPresent(join(workDir, STORAGE_RECORD))) as
    Partial<StoredVersion> | undefined;
  if (!stored) return undefined;
  if (
    typeof stored.ark !== 'string' ||
    typeof stored.version !== 'number' ||
    typeof stored.manifestUrl !== 'string'
  ) {
    throw new OutputError('WORKDIR_INVALID', `${join(workDir, STORAGE_RECORD)} is unreadable`);
  }
  return { ark: assertArk(stored.ark), version: stored.version, manifestUrl: stored.manifestUrl };
}
