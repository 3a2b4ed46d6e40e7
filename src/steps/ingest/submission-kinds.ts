/** The submission types a batch can have (seed 001/003 payloads), as the engine expands them. */
export const SUBMISSION_KINDS = [
  'file',
  'container',
  'object-manifest',
  'manifest-of-manifests',
  'manifest-of-containers',
] as const;

export type SubmissionKind = (typeof SUBMISSION_KINDS)[number];

/** Accepted spellings: ours, and Merritt ingest's names for the two batch manifests. */
const KINDS: Readonly<Record<string, SubmissionKind>> = {
  ...Object.fromEntries(SUBMISSION_KINDS.map((kind) => [kind, kind])),
  'batch-manifest': 'manifest-of-manifests',
  'container-batch-manifest': 'manifest-of-containers',
};

/** The kind a submission's `type` names (case and `_`/`-` ignored), or undefined when none. */
export function submissionKindOf(type: unknown): SubmissionKind | undefined {
  const key = String(type).trim().toLowerCase().replace(/_/g, '-');
  return Object.hasOwn(KINDS, key) ? KINDS[key] : undefined;
}
