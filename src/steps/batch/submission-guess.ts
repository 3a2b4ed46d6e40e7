import type { SubmissionKind } from './submission-kinds.js';

/**
 * A submission without a type is guessed as mrt-ingest's `JerseyBase.getFormData` guesses it:
 * a container by its name's ending (case as written: mrt-ingest's `endsWith`), else a checkm
 * manifest by the profile it names, else a single file.
 */

/** The endings mrt-ingest takes for a container. */
export const CONTAINER_ENDINGS = ['.gz', '.tar', '.zip', '.bz', '.tgz', '.bz2'] as const;

/** How much of a payload the guess reads: a manifest names its profile in its first lines. */
export const GUESS_HEAD_BYTES = 64 * 1024;

/** Manifest profiles by the ending mrt-ingest matches, the most specific first. */
const PROFILE_ENDINGS: ReadonlyArray<readonly [string, SubmissionKind]> = [
  ['single-file-batch-manifest', 'single-file-batch-manifest'],
  ['container-batch-manifest', 'container-batch-manifest'],
  ['batch-manifest', 'batch-manifest'],
  ['ingest-manifest', 'object-manifest'],
];

/** The kind a manifest profile URL names (`…/mrt-batch-manifest` → batch-manifest), if any. */
export function kindOfManifestProfile(profile: string | undefined): SubmissionKind | undefined {
  const url = profile?.trim() ?? '';
  return PROFILE_ENDINGS.find(([ending]) => url.endsWith(ending))?.[1];
}

/** A directive line (`#%name …` or `%name …`): its lower-case name and the rest, or undefined. */
function directive(line: string): { name: string; rest: string } | undefined {
  const match = /^#?%([A-Za-z0-9_.-]+)\s*\|?\s*(.*)$/.exec(line.trim());
  return match ? { name: match[1]!.toLowerCase(), rest: match[2]!.trim() } : undefined;
}

/**
 * The `#%profile` a checkm text names before its first row, or undefined when the text does not
 * start with a checkm header (so it is no manifest).
 */
export function checkmHeadProfile(head: string): string | undefined {
  const lines = head.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/);
  const start = lines.findIndex((line) => line.trim() !== '');
  if (start < 0 || directive(lines[start]!)?.name !== 'checkm_0.7') return undefined;
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '') continue;
    const found = directive(line);
    if (found?.name === 'profile') return found.rest;
    if (!found && !line.trim().startsWith('#')) return undefined;
  }
  return undefined;
}

/** The type mrt-ingest would give a payload named `fileName` whose text begins with `head`. */
export function guessSubmissionKind(fileName: string, head: string): SubmissionKind {
  if (CONTAINER_ENDINGS.some((ending) => fileName.endsWith(ending))) return 'container';
  return kindOfManifestProfile(checkmHeadProfile(head)) ?? 'file';
}
