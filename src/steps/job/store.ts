import { mkdir, readFile } from '../fs/calls.js';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { QueueContext } from '../../queue/tree/context.js';
import type { MerrittJobSteps } from '../contracts.js';
import type { IngestSettings } from '../../config/ingest-settings.js';
import type { Fetcher } from '../services/fetch/fetch.js';
import { storeNodeDeletes } from '../formats/delete-list.js';
import { INGEST_QUEUE_PATH, requireStoreNode } from '../services/handoff/handoff.js';
import { OutputError } from '../output-errors.js';
import { isBelow, resolveInside } from '../workdir/files.js';
import { withObjectLock } from '../services/output-lock.js';
import { jobWorkDir, writeStoredVersion } from '../workdir/workdir.js';
import type { Storage, StoreFile, UpdateRequest } from '../services/storage/port.js';
import { parseHandOffManifest } from '../services/handoff/manifest.js';
import type { ManifestRow } from '../formats/storage-manifest.js';
import { redactUrl } from '../formats/url-credentials.js';

/** What the storing step is built from. */
export interface StoreDeps {
  settings: Pick<IngestSettings, 'workRoot' | 'storageLockWaitMs' | 'merritt'>;
  storage: Storage;
  fetcher: Pick<Fetcher, 'text' | 'toFile'>;
  queue: QueueContext;
}

/**
 * The file a URL of this engine's own `{MRTQ_PUBLIC_URL}/ingestqueue/…` names under the work root
 * (what routes-ingest-queue.ts would serve), else undefined. A job a Merritt-mode run handed off
 * names such URLs; read from disk, its storing needs no HTTP round trip to this very process (and
 * no /ingestqueue route, nor a public URL that answers from here).
 */
function ownIngestQueuePath(url: string, settings: StoreDeps['settings']): string | undefined {
  const publicUrl = settings.merritt?.publicUrl;
  if (!publicUrl || !URL.canParse(url) || !URL.canParse(publicUrl)) return undefined;
  const base = new URL(publicUrl);
  const target = new URL(url);
  const prefix = `${base.pathname.replace(/\/+$/, '')}${INGEST_QUEUE_PATH}/`;
  if (target.origin !== base.origin || !target.pathname.startsWith(prefix) || target.search !== '')
    return undefined;
  try {
    const segments = target.pathname.slice(prefix.length).split('/').map(decodeURIComponent);
    if (segments.some((segment) => ['', '.', '..'].includes(segment) || /[\\/]/.test(segment)))
      return undefined;
    return resolve(settings.workRoot, ...segments);
  } catch {
    return undefined; // a malformed escape: not a URL this engine wrote
  }
}

/**
 * The path of a file URL inside `dir`: a `file://` URL, or one of this engine's own ingestqueue
 * URLs (ownIngestQueuePath); undefined for anything else (fetched).
 */
function localPathInside(settings: StoreDeps['settings'], url: string, dir: string): string | undefined {
  let path: string | undefined;
  try {
    path = url.startsWith('file:') ? resolve(fileURLToPath(url)) : ownIngestQueuePath(url, settings);
  } catch {
    return undefined;
  }
  return path !== undefined && isBelow(dir, path) ? path : undefined;
}

async function readManifest(deps: StoreDeps, url: string, workDir: string, signal: AbortSignal) {
  const local = localPathInside(deps.settings, url, workDir);
  const text = local ? await readFile(local, 'utf8') : await deps.fetcher.text(url, { signal });
  try {
    return parseHandOffManifest(text);
  } catch (err) {
    throw new OutputError(
      'HANDOFF_INVALID',
      `the manifest at ${redactUrl(url)} cannot be read: ${(err as Error).message}`,
      {
        cause: err,
      },
    );
  }
}

/**
 * Every file of the manifest in the working directory under its name: files already there (the
 * embedded case: processing listed them by `file://` URL, or by this engine's own ingestqueue
 * URL when it ran in Merritt mode) are used as they are, others are
 * fetched and checked against the manifest's size and digest.
 */
async function stageFiles(deps: StoreDeps, rows: ManifestRow[], workDir: string, signal: AbortSignal) {
  const files: StoreFile[] = [];
  for (const row of rows) {
    const target = resolveInside(workDir, row.path);
    if (localPathInside(deps.settings, row.url, workDir) !== target) {
      await mkdir(dirname(target), { recursive: true });
      await deps.fetcher.toFile(row.url, target, {
        signal,
        expected: { size: row.size, digest: row.digest },
      });
    }
    files.push({ path: row.path, size: row.size, digest: row.digest });
  }
  return files;
}

/**
 * The storing step (mrt-zk's Storing, October 2025): the embedded storage takes the job the way
 * Merritt's storage service does (`StoreConsumer`, merritt-protocols.md §1): it reads
 * `/jobs/JID/store`, splits `mode` into action, node and ark, reads the manifest at
 * `manifest_url`, and adds a version under `/locks/storage/<ark>`: for `add` a version of exactly
 * the manifest's files; for `update` the next version of the existing object, without the files
 * `delete` names, with the manifest's files added or replacing (mrt-store's `updateVersion`). A job another tool left in
 * Storing runs the same way; its files are fetched from the manifest's URLs when they are not in
 * the working directory. Idempotent: storage returns the version that already holds these files.
 */
export function createStoreStep(deps: StoreDeps): MerrittJobSteps['store'] {
  return async ({ job, signal, log, note }) => {
    const handOff = requireStoreNode(job.jobId, job.store);
    const workDir = jobWorkDir(deps.settings, job);
    const rows = await readManifest(deps, handOff.manifest_url, workDir, signal);
    if (rows.length === 0)
      throw new OutputError('HANDOFF_INVALID', `the manifest at ${handOff.manifest_url} lists no files`);
    const files = await stageFiles(deps, rows, workDir, signal);
    const { ark, node } = handOff;
    const jobId = job.jobId;
    const deletes = handOff.action === 'update' ? storeNodeDeletes(handOff.delete) : [];
    const stored = await withObjectLock(
      deps.queue,
      'storage',
      ark,
      { signal, log, limitMs: deps.settings.storageLockWaitMs },
      () =>
        handOff.action === 'update'
          ? updateObject(deps.storage, { ark, workDir, files, deletes, signal, node, jobId })
          : deps.storage.store({ ark, workDir, files, signal, node, jobId }),
    );
    await writeStoredVersion(workDir, { ark, ...stored });
    note?.({ storage: `node ${handOff.node}`, ark, version: stored.version, files: files.length });
    log.info(
      { ark, version: stored.version, action: handOff.action, node: handOff.node, deletes: deletes.length },
      'stored',
    );
  };
}

/** An update through a storage that can apply one; STORAGE_FAILED saying so otherwise. */
function updateObject(storage: Storage, request: UpdateRequest) {
  if (!storage.update) {
    throw new OutputError(
      'STORAGE_FAILED',
      `the configured storage service cannot apply updates (of ${request.ark}); ` +
        "use the embedded storage, or leave storing to Merritt's storage service (deployment: merritt)",
    );
  }
  return storage.update(request);
}
