import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { pathToFileURL } from 'node:url';
import yazl from 'yazl';
import type { AccessQueue } from '../../../machines/index.js';
import { OutputError } from '../output-errors.js';
import { objectDirName, resolveInside } from '../workdir/files.js';
import { listVersions, MANIFEST_NAME, objectDir, readVersionEntries } from '../services/storage/layout.js';

export interface AssembleRequest {
  ark: string;
  /** The version to assemble; the latest when absent. */
  version?: number;
  queue: AccessQueue;
  /** The access request's id (`qidN`): with its queue, names the zip. */
  qid: string;
  signal?: AbortSignal;
}

export interface AssembleDeps {
  /** Data directory of the local store; zips go to `<dataDir>/access/`. */
  dataDir: string;
}

/** What goes into the access token: where the zip is and how big it is. */
export interface AssembledObject {
  url: string;
  size: number;
  version: number;
}

const QID = /^[A-Za-z0-9_-]{1,64}$/;

async function storedArk(dir: string): Promise<string | undefined> {
  try {
    return (await readFile(join(dir, 'ark.txt'), 'utf8')).trim();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** The version to assemble, refused with OBJECT_NOT_FOUND when the store does not hold it. */
async function pickVersion(dir: string, request: AssembleRequest): Promise<number> {
  const versions = (await storedArk(dir)) === request.ark ? await listVersions(dir) : [];
  if (versions.length === 0) {
    throw new OutputError('OBJECT_NOT_FOUND', `the store holds no object ${request.ark}`);
  }
  const version = request.version ?? versions.at(-1)!;
  if (!versions.includes(version)) {
    throw new OutputError(
      'OBJECT_NOT_FOUND',
      `${request.ark} has no version ${version} (stored: ${versions.map((v) => `v${v}`).join(', ')})`,
    );
  }
  return version;
}

/**
 * Where a request's zip goes: `<dataDir>/access/<queue>-<qid>.zip`. The two queues number their
 * requests separately (`small/qid0000000001` and `large/qid0000000001` are two requests), so the
 * queue is part of the name. Requests assembled before were written to `<qid>.zip`; nothing reads
 * that name again (their token's `url` names the file, which stays where it is), so it is not
 * looked for. A token never names such a file: token statuses live in `access/<uuid>/`.
 */
export function accessArchivePath(dataDir: string, queue: AccessQueue, qid: string): string {
  return join(dataDir, 'access', `${queue}-${qid}.zip`);
}

/**
 * Access assembly (seed 002 access queue): zips a stored object version from the local store
 * into `accessArchivePath` (`<dataDir>/access/<queue>-<qid>.zip`), entries under `<ark as directory name>/` (the version's
 * files as its manifest lists them, and the manifest). The zip is written to a temporary name
 * and renamed, so a re-run after a crash replaces it whole. Requests of the large queue are
 * stored without compression: for big objects the CPU costs more than the bytes saved.
 */
export async function assemble(request: AssembleRequest, deps: AssembleDeps): Promise<AssembledObject> {
  if (!QID.test(request.qid)) {
    throw new OutputError('OBJECT_NOT_FOUND', `access id ${JSON.stringify(request.qid)} cannot name a file`);
  }
  const dir = objectDir(deps.dataDir, request.ark);
  const version = await pickVersion(dir, request);
  const versionDir = join(dir, `v${version}`);
  const entries = await readVersionEntries(dir, version);
  const top = objectDirName(request.ark);
  const zip = new yazl.ZipFile();
  const compress = request.queue === 'small';
  for (const entry of entries)
    zip.addFile(resolveInside(versionDir, entry.path), `${top}/${entry.path}`, { compress });
  zip.addFile(join(versionDir, MANIFEST_NAME), `${top}/${MANIFEST_NAME}`, { compress });
  zip.end();
  const target = accessArchivePath(deps.dataDir, request.queue, request.qid);
  await mkdir(dirname(target), { recursive: true });
  const temp = `${target}.tmp-${randomBytes(4).toString('hex')}`;
  try {
    const signal = request.signal ?? new AbortController().signal;
    await pipeline(zip.outputStream, createWriteStream(temp), { signal });
    await rename(temp, target);
  } finally {
    await rm(temp, { force: true });
  }
  return { url: pathToFileURL(target).href, size: (await stat(target)).size, version };
}
