import { OutputError } from '../../output-errors.js';
import { sameEntries, type ManifestEntry } from '../../formats/storage-manifest.js';

/**
 * How an update makes the next version of an object, as mrt-store does it
 * (`VersionMap.getMergeComponents`): the files of the latest version, without those the delete
 * list names, with the update's files added or replacing files of the same path.
 */

/** The next version of an update, split by where each file is copied from. */
export interface UpdatePlan {
  /** Files of the latest version kept as they are (copied from that version). */
  carried: ManifestEntry[];
  /** Files of the update (copied from the job's working directory). */
  added: ManifestEntry[];
}

/**
 * Whether the latest version already is the result of this update: it holds every file of the
 * update as given and none the delete list names. Applying the update again would change
 * nothing, so a step re-run after a crash returns that version instead of adding one.
 */
export function isUpdateApplied(
  latest: readonly ManifestEntry[],
  files: readonly ManifestEntry[],
  deletes: readonly string[],
): boolean {
  const byPath = new Map(latest.map((entry) => [entry.path, entry]));
  if (deletes.some((path) => byPath.has(path))) return false;
  return files.every((file) => {
    const held = byPath.get(file.path);
    return held !== undefined && sameEntries([held], [file]);
  });
}

/**
 * The next version of `ark` after version `version` (whose files are `latest`); STORAGE_FAILED
 * naming the paths when the delete list names a file that version does not hold (mrt-store
 * refuses such an update too: "Delete list component not found").
 */
export function planUpdate(
  ark: string,
  version: number,
  latest: readonly ManifestEntry[],
  files: readonly ManifestEntry[],
  deletes: readonly string[],
): UpdatePlan {
  const held = new Set(latest.map((entry) => entry.path));
  const missing = deletes.filter((path) => !held.has(path));
  if (missing.length > 0) {
    throw new OutputError(
      'STORAGE_FAILED',
      `the update of ${ark} deletes ${missing.join(', ')}, which version ${version} (${held.size} files) ` +
        'does not hold; correct mrt-delete.txt (paths under producer/) and submit the update again',
    );
  }
  const gone = new Set([...deletes, ...files.map((file) => file.path)]);
  return { carried: latest.filter((entry) => !gone.has(entry.path)), added: [...files] };
}
