import { mkdir, readdir, rename, rm, writeFile } from '../fs/calls.js';
import { basename, dirname, join } from 'node:path';
import type { MerrittJobSteps } from '../contracts.js';
import { unpackContainer } from '../formats/containers/containers.js';
import { workDirOf, type DownloadedFile, type DownloadRecord } from '../ingest-contracts.js';
import type { IngestSettings } from '../../config/ingest-settings.js';
import { FetchError, IntakeError, isIntakeError } from '../intake-errors.js';
import type { Fetcher, FetchedFile } from '../services/fetch/fetch.js';
import { mapLimit } from '../services/fetch/limit.js';
import { mimeTypeOf } from '../services/handoff/mime.js';
import { DEFAULT_ALGORITHM } from '../formats/digest.js';
import { objectOf, type ObjectFile } from './object-files.js';
import { joinInside } from '../workdir/safe-path.js';
import { makeParentDirs, syncFileSystem } from '../workdir/files.js';
import { flushBehind } from '../services/fetch/sink.js';
import { Attr } from '../../telemetry/attributes.js';
import { annotateActiveSpan } from '../../telemetry/span.js';

/** What the download step is built from (composition root). */
export interface DownloadDeps {
  fetcher: Fetcher;
  settings: IngestSettings;
}

/** Layout of the working directory (contracts.ts): the depositor's files. */
export const PRODUCER_DIR = 'producer';
/** The DownloadRecord, written last. */
export const DOWNLOAD_RECORD = 'download.json';
/**
 * The smallest file whose create goes through the thread pool when several download at once.
 * Measured here, three alternated pairs each: 2,000 files of 64 KiB 4.12 -> 3.39 s (a server
 * closing its connections) and 3.11 -> 2.94 s (kept alive); 20,000 files of 4 KiB, all through the
 * pool, 12.48 -> 14.36 s (kept alive), hence the threshold.
 */
const OFF_LOOP_CREATE_BYTES = 64 * 1024;
/** Where a container waits while it is unpacked; removed afterwards. */
const CONTAINER_DIR = 'container';

/** Fetches one file, prefixing any failure with the file's name so the job's message says which. */
async function fetchNamed(
  fetcher: Fetcher,
  file: ObjectFile,
  target: string,
  { signal, createOffLoop }: { signal: AbortSignal; createOffLoop: boolean },
): Promise<FetchedFile> {
  try {
    const expected = { size: file.size, digest: file.digest };
    return await fetcher.toFile(file.url, target, { signal, expected, createOffLoop });
  } catch (err) {
    if (signal.aborted || !isIntakeError(err)) throw err;
    const message = `file "${file.fileName}" could not be downloaded: ${err.message}`;
    const options = { cause: err, retryable: err.retryable };
    throw err instanceof FetchError
      ? new FetchError(err.code, err.url, message, { ...options, status: err.status, attempts: err.attempts })
      : new IntakeError(err.code, message, options);
  }
}

/** One file of the object into `target` (its place in `producer/`), with what processing will need of it. */
async function downloadOne(
  deps: DownloadDeps,
  target: string,
  file: ObjectFile,
  how: { signal: AbortSignal; createOffLoop: boolean },
): Promise<DownloadedFile> {
  const got = await fetchNamed(deps.fetcher, file, target, how);
  const path = `${PRODUCER_DIR}/${file.fileName}`;
  return {
    path,
    size: got.size,
    digest: got.digest,
    sourceUrl: file.url,
    ...(got.digest.algorithm === DEFAULT_ALGORITHM ? {} : { sha256: got.sha256 }),
    mimeType: mimeTypeOf(path, got.head),
  };
}

async function downloadFiles(
  deps: DownloadDeps,
  dir: string,
  files: ObjectFile[],
  signal: AbortSignal,
): Promise<DownloadedFile[]> {
  const producer = join(dir, PRODUCER_DIR);
  // Flush-behind across the object's files (the sink does it within a big file): one syncfs of the
  // working file system every FLUSH_BEHIND_BYTES, so the store's syncfs of thousands of small
  // files finds them written.
  const behind =
    deps.settings.fetch.flushBehind !== false && files.length > 1
      ? flushBehind(() => syncFileSystem(dir))
      : undefined;
  // The folders of every file first, each once; clean made producer/ itself.
  const targets = files.map((file) => joinInside(producer, file.fileName));
  await makeParentDirs(targets.filter((target) => dirname(target) !== producer));
  // With several downloads in flight, a file the depositor says is of OFF_LOOP_CREATE_BYTES or
  // more is created by a pool thread while the loop serves the others (docs/performance.md, seventh
  // session): a create costs 100-400 µs of kernel CPU on this machine's ext4. Smaller files, and a
  // lone file, have too little work to overlap with: there the hand-off costs more than the create.
  const several = files.length > 1;
  try {
    return await mapLimit(files, deps.settings.fetch.concurrency, signal, async (file, index, each) => {
      const createOffLoop = several && (file.size ?? 0) >= OFF_LOOP_CREATE_BYTES;
      const downloaded = await downloadOne(deps, targets[index]!, file, { signal: each, createOffLoop });
      behind?.wrote(downloaded.size);
      return downloaded;
    });
  } finally {
    await behind?.settled();
  }
}

async function downloadContainer(
  deps: DownloadDeps,
  dir: string,
  file: ObjectFile,
  signal: AbortSignal,
): Promise<DownloadedFile[]> {
  const holding = join(dir, CONTAINER_DIR);
  await mkdir(holding, { recursive: true });
  try {
    const archive = join(holding, basename(file.fileName));
    await fetchNamed(deps.fetcher, file, archive, { signal, createOffLoop: false });
    const unpacked = await unpackContainer(
      archive,
      join(dir, PRODUCER_DIR),
      deps.settings.containers,
      signal,
      file.fileName,
    );
    return unpacked.map((u) => ({
      path: `${PRODUCER_DIR}/${u.path}`,
      size: u.size,
      digest: u.digest,
      sourceUrl: file.url,
    }));
  } finally {
    await rm(holding, { recursive: true, force: true });
  }
}

/**
 * For the job's history (PREMIS fixity check and message digest calculation): digests verified
 * against the depositor's, and those computed where none was given, counted by algorithm. A
 * container's own digest is the one verified; its entries' are computed.
 */
function digestCounts(
  given: readonly ObjectFile[],
  files: readonly DownloadedFile[],
  container: boolean,
): { verified: Record<string, number>; computed: Record<string, number> } {
  const verified: Record<string, number> = {};
  const computed: Record<string, number> = {};
  const count = (into: Record<string, number>, algorithm: string): void => {
    into[algorithm] = (into[algorithm] ?? 0) + 1;
  };
  if (container) {
    const digest = given[0]?.digest;
    if (digest) count(verified, digest.algorithm);
    for (const file of files) count(computed, file.digest.algorithm);
  } else {
    files.forEach((file, index) => count(given[index]?.digest ? verified : computed, file.digest.algorithm));
  }
  return { verified, computed };
}

/** What a run of this step writes into the working directory. */
const DOWNLOAD_OUTPUTS = new Set([DOWNLOAD_RECORD, PRODUCER_DIR, CONTAINER_DIR, `${DOWNLOAD_RECORD}.tmp`]);

/**
 * Removes what an earlier, interrupted run may have left, so every run starts clean: the record
 * first (so it never stands over a partial download), then the rest. One listing when there is
 * nothing to remove, the usual case.
 */
async function clean(dir: string): Promise<void> {
  const names = await readdir(dir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  const stale = names.filter((name) => DOWNLOAD_OUTPUTS.has(name));
  if (stale.includes(DOWNLOAD_RECORD)) await rm(join(dir, DOWNLOAD_RECORD), { force: true });
  await Promise.all(
    stale
      .filter((name) => name !== DOWNLOAD_RECORD)
      .map((name) => rm(join(dir, name), { recursive: true, force: true })),
  );
  await mkdir(join(dir, PRODUCER_DIR), { recursive: true });
}

/** Writes the record atomically (rename), so a reader never sees half of it. */
async function writeRecord(dir: string, record: DownloadRecord): Promise<void> {
  const tmp = join(dir, `${DOWNLOAD_RECORD}.tmp`);
  await writeFile(tmp, `${JSON.stringify(record, null, 2)}\n`);
  await rename(tmp, join(dir, DOWNLOAD_RECORD));
}

/**
 * The downloading step (seed 001/003): GET every file of the object into `producer/<fileName>`
 * (at most `fetch.concurrency` at once), checking the depositor's sizes and digests, unpack a
 * container there, then write `download.json` last, so its presence means the download is
 * complete. It starts by removing an earlier run's leftovers, so it can run again after a crash.
 * A file that cannot be fetched or verified fails the job with a message naming the file.
 * Returns the bytes really downloaded (unpacked, for a container).
 */
export function createDownloadStep(deps: DownloadDeps): MerrittJobSteps['download'] {
  return async ({ job, signal, log, note }) => {
    const dir = workDirOf(deps.settings.workRoot, job.batchId, job.jobId);
    await clean(dir);
    const object = await objectOf(job, deps.fetcher, signal);
    const [single] = object.files;
    const files =
      object.container && single
        ? await downloadContainer(deps, dir, single, signal)
        : await downloadFiles(deps, dir, object.files, signal);
    signal.throwIfAborted();
    await writeRecord(dir, { files, object: object.object });
    const spaceNeeded = files.reduce((sum, file) => sum + file.size, 0);
    log.info({ jobId: job.jobId, files: files.length, spaceNeeded }, 'downloaded');
    annotateActiveSpan({ [Attr.bytesDownloaded]: spaceNeeded });
    note?.({
      files: files.length,
      bytes: spaceNeeded,
      ...digestCounts(object.files, files, object.container),
    });
    return { spaceNeeded };
  };
}
