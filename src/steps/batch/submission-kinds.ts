/**
 * Merritt's six submission types, by the names its UI, its Ruby client and mrt-ingest's
 * `JerseyBase.getFormData` use (the form's `type`): each is expanded as mrt-ingest expands it.
 */
export const SUBMISSION_KINDS = [
  'file',
  'container',
  'object-manifest',
  'batch-manifest',
  'container-batch-manifest',
  'single-file-batch-manifest',
] as const;

export type SubmissionKind = (typeof SUBMISSION_KINDS)[number];

/** The kinds whose payload is a manifest of objects: one job per row. */
export const BATCH_KINDS: readonly SubmissionKind[] = [
  'batch-manifest',
  'container-batch-manifest',
  'single-file-batch-manifest',
];

/**
 * Other spellings read from a tree: mrt-ingest's `PackageTypeEnum` names, which its
 * `HandlerSubmit` writes into a batch's `submission` (`manifest`, `batchManifest`…), and the
 * names this engine wrote before it took Merritt's (`manifest-of-manifests`…).
 */
const ALIASES: Readonly<Record<string, SubmissionKind>> = {
  manifest: 'object-manifest',
  batchmanifest: 'batch-manifest',
  batchmanifestcontainer: 'container-batch-manifest',
  batchmanifestfile: 'single-file-batch-manifest',
  'manifest-of-manifests': 'batch-manifest',
  'manifest-of-containers': 'container-batch-manifest',
};

const KINDS: Readonly<Record<string, SubmissionKind>> = {
  ...Object.fromEntries(SUBMISSION_KINDS.map((kind) => [kind, kind])),
  ...ALIASES,
};

/** The kind a submission's `type` names (case and `_`/`-` ignored), or undefined when none. */
export function submissionKindOf(type: unknown): SubmissionKind | undefined {
  const key = String(type).trim().toLowerCase().replace(/_/g, '-');
  return Object.hasOwn(KINDS, key) ? KINDS[key] : undefined;
}

/** Whether a submission gives no type at all: the engine then guesses it as mrt-ingest does. */
export function isUntyped(type: unknown): boolean {
  return type === undefined || type === null || (typeof type === 'string' && type.trim() === '');
}
