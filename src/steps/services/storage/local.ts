import { randomBytes } from 'node:crypto';
import { mkdir, readdir, readFile, rename, rm } from '../../fs/calls.js';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { OutputError } from '../../output-errors.js';
import { writeFileAtomic, writeFileFresh } from '../../workdir/files.js';
import { listVersions, MANIFEST_NAME, objectDir, readVersionEntries, versionsIn } from './layout.js';
import type { Storage, StoreRequest, StoreResult, UpdateRequest } from './port.js';
import { makeDurable, placeFiles, syncDirectory, syncsEachFile } from './copy.js';
import { isUpdateApplied, planUpdate } from './update.js';
import { formatStorageManifest, sameEntries, type ManifestEntry } from '../../formats/storage-manifest.js';
import { registerLocalRoot } from '../../fs/local-roots.js';

/**
 * The local default storage: a versioned object store on disk,
 * `<dataDir>/store/<ark with : and / as _>/v<N>/{producer,system}/…` plus `v<N>/manifest.checkm`.
 * A version is assembled in a temporary directory next to the versions and renamed into place,
 * so a version directory exists complete or not at all. The object directory also holds
 * `ark.txt`, because two arks can share a directory name (`a_b` and `a/b`): a mismatch is refused.
 */

const TEMP_PREFIX = '.tmp-';

/**
 * Makes the object directory, or checks that the one there belongs to this ark. True when this
 * call made it: nothing is in it then (the caller holds the object's storage lock), so its
 * leftovers and versions need not be listed.
 */
async function claimObjectDir(dir: string, ark: string, sync: boolean): Promise<boolean> {
  const owner = join(dir, 'ark.txt');
  // mkdir says whether it made the directory: a new object's ark.txt is not looked for first.
  const made = (await mkdir(dir, { recursive: true })) !== undefined;
  let recorded: string | undefined;
  if (!made) {
    try {
      recorded = (await readFile(owner, 'utf8')).trim();
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
  if (recorded === undefined) await writeFileAtomic(owner, `${ark}\n`, { durable: sync });
  else if (recorded !== ark) {
    throw new OutputError('IDENTIFIER_CONFLICT', `store directory ${dir} belongs to ${recorded}, not ${ark}`);
  }
  return made;
}

/**
 * Leftovers of a store that crashed before its rename. Only one writer per object runs at a
 * time (the caller holds `/locks/storage/<ark>`), so any temporary directory here is dead; if a
 * writer whose lock was lost is still copying, removing its directory makes its rename fail,
 * which is what should happen to it. Returns the object's versions, from the same listing.
 */
async function removeLeftovers(dir: string): Promise<number[]> {
  const names = await readdir(dir);
  await Promise.all(
    names
      .filter((n) => n.startsWith(TEMP_PREFIX))
      .map((n) => rm(join(dir, n), { recursive: true, force: true })),
  );
  return versionsIn(names);
}

/** Files a new version takes from one directory (the job's working directory, or an earlier version). */
interface VersionSource {
  root: string;
  files: readonly ManifestEntry[];
  /** What a file that does not match its recorded digest means here. */
  hint?: string;
  /** Read each file for its digest before taking it (an earlier version's: its bytes were not just verified). */
  verify?: boolean;
}

/** Builds `v<version>` in a temporary directory and renames it into place; false when that version appeared meanwhile. */
async function writeVersion(
  dir: string,
  version: number,
  sources: readonly VersionSource[],
  { signal, sync }: { signal: AbortSignal; sync: boolean },
): Promise<boolean> {
  const temp = join(dir, `${TEMP_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`);
  let renamed = false;
  try {
    const entries: ManifestEntry[] = [];
    for (const { root, files, hint, verify } of sources)
      entries.push(...(await placeFiles(root, temp, files, signal, { hint, verify })));
    const finalDir = join(dir, `v${version}`);
    const manifest = formatStorageManifest(entries, (path) => pathToFileURL(join(finalDir, path)).href);
    // Written in place (the temporary directory is this writer's alone, and renamed whole), and
    // durable with the files: fsynced as it is written when they are synced one by one, else by
    // their one syncfs. The version is renamed into place only once all are durable.
    const files = entries.map((entry) => join(temp, entry.path));
    const manifestPath = join(temp, MANIFEST_NAME);
    const eachFile = sync && syncsEachFile(files.length + 1);
    await writeFileFresh(manifestPath, manifest, { durable: eachFile });
    if (sync) await makeDurable(temp, eachFile ? files : [...files, manifestPath], signal);
    signal.throwIfAborted();
    if (!(await renameUnlessTaken(temp, finalDir))) return false;
    renamed = true;
    if (sync) await syncDirectory(dir);
    return true;
  } finally {
    // Nothing is left under the temporary name once it was renamed into place.
    if (!renamed) await rm(temp, { recursive: true, force: true });
  }
}

async function renameUnlessTaken(from: string, to: string): Promise<boolean> {
  try {
    await rename(from, to);
    return true;
  } catch (err) {
    if (['EEXIST', 'ENOTEMPTY'].includes((err as NodeJS.ErrnoException).code ?? '')) return false;
    throw err;
  }
}

/**
 * Adds the next version of the object in `dir` and returns its number: `next(last)` says whether
 * the latest version already is the one asked for (`'applied'`: its number is returned) or which
 * sources the next is built from. Two rounds: a version renamed into place by someone else in
 * between is re-examined once. The first round uses the listing that found the leftovers (none
 * when `made`: claimObjectDir just made the directory).
 */
async function addVersion(
  dir: string,
  ark: string,
  options: { signal: AbortSignal; sync: boolean; made?: boolean },
  next: (last: number) => Promise<'applied' | readonly VersionSource[]>,
): Promise<number> {
  let versions = options.made ? [] : await removeLeftovers(dir);
  for (let round = 0; round < 2; round += 1) {
    if (round > 0) versions = await listVersions(dir);
    const last = versions.at(-1) ?? 0;
    const sources = await next(last);
    if (sources === 'applied') return last;
    if (await writeVersion(dir, last + 1, sources, options)) return last + 1;
  }
  throw busy(ark);
}

/** The local versioned store under `<dataDir>/store`. */
export function createLocalStorage(
  dataDir: string,
  { sync = true }: { sync?: boolean } = {},
): Storage & Required<Pick<Storage, 'latest' | 'update'>> {
  void registerLocalRoot(join(dataDir, 'store'));
  const resultOf = (dir: string, version: number): StoreResult => ({
    version,
    manifestUrl: pathToFileURL(join(dir, `v${version}`, MANIFEST_NAME)).href,
  });
  return {
    async latest(ark: string): Promise<StoreResult | undefined> {
      const dir = objectDir(dataDir, ark);
      const last = (await listVersions(dir)).at(-1);
      return last === undefined ? undefined : resultOf(dir, last);
    },
    async store(request: StoreRequest): Promise<StoreResult> {
      const dir = objectDir(dataDir, request.ark);
      const made = await claimObjectDir(dir, request.ark, sync);
      const version = await addVersion(
        dir,
        request.ark,
        { signal: request.signal, sync, made },
        async (last) =>
          last > 0 && sameEntries(await readVersionEntries(dir, last), request.files)
            ? 'applied'
            : [{ root: request.workDir, files: request.files }],
      );
      return resultOf(dir, version);
    },
    async update(request: UpdateRequest): Promise<StoreResult> {
      const dir = objectDir(dataDir, request.ark);
      if ((await listVersions(dir)).length === 0) throw notStored(request.ark);
      // It has versions: claimObjectDir finds the directory there.
      await claimObjectDir(dir, request.ark, sync);
      const version = await addVersion(dir, request.ark, { signal: request.signal, sync }, async (last) => {
        const latest = await readVersionEntries(dir, last);
        if (isUpdateApplied(latest, request.files, request.deletes)) return 'applied';
        const plan = planUpdate(request.ark, last, latest, request.files, request.deletes);
        return [
          {
            root: join(dir, `v${last}`),
            files: plan.carried,
            hint: `version ${last} of ${request.ark} in the store is damaged; restore it before updating`,
            verify: true,
          },
          { root: request.workDir, files: plan.added },
        ];
      });
      return resultOf(dir, version);
    },
  };
}

function busy(ark: string): OutputError {
  return new OutputError('STORAGE_FAILED', `${ark}: another writer keeps adding versions`, {
    retryable: true,
  });
}

function notStored(ark: string): OutputError {
  return new OutputError(
    'OBJECT_NOT_FOUND',
    `update of ${ark}: no object with this ark is stored. An update names an existing object by its ` +
      'primary id (or a local id it was stored under); submit it as a new object (submission_mode add) otherwise',
  );
}
