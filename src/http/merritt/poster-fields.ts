import { parseDigest } from '../../steps/formats/digest.js';
import {
  BATCH_KINDS,
  SUBMISSION_KINDS,
  submissionKindOf,
  type SubmissionKind,
} from '../../steps/batch/submission-kinds.js';
import type { Submission } from '../../queue/tree/records.js';
import { MerrittError } from './exc.js';

/**
 * The fields of Merritt's submission form, as mrt-ingest's `JerseyBase.getFormData` reads them,
 * and the submission node they become (the engine's keys, which the batch's expansion reads).
 */

/** The Dublin Core elements of the `DC.<element>` fields. */
export const DC_ELEMENTS = [
  'contributor',
  'coverage',
  'creator',
  'date',
  'description',
  'format',
  'identifier',
  'language',
  'publisher',
  'relation',
  'rights',
  'source',
  'subject',
  'title',
  'type',
] as const;

/** Every field mrt-ingest reads; others are ignored with a warning, as there. */
export const POSTER_FIELDS: ReadonlySet<string> = new Set([
  'submitter',
  'profile',
  'type',
  'filename',
  'size',
  'digestType',
  'digestValue',
  'creator',
  'title',
  'date',
  'localIdentifier',
  'primaryIdentifier',
  'object',
  'note',
  'erc',
  'notification',
  'notificationFormat',
  'responseForm',
  'retainTargetURL',
  ...DC_ELEMENTS.map((element) => `DC.${element}`),
  'DataCite.resourceType',
]);

/**
 * The kind a form's `type` names, by mrt-ingest's rule: exactly `object-manifest`, else one that
 * contains `single-file-batch-manifest`, `container-batch-manifest`, `batch-manifest` (in that
 * order), else the value itself (`file`, `container`, and mrt-ingest's own enum names
 * `manifest`, `batchManifest`… which its tests post). mrt-ingest guesses when the value names no
 * type; here that is an error the depositor can act on.
 */
export function kindOfFormType(value: string): SubmissionKind | undefined {
  if (value === 'object-manifest') return 'object-manifest';
  const named = (['single-file-batch-manifest', 'container-batch-manifest', 'batch-manifest'] as const).find(
    (kind) => value.includes(kind),
  );
  return named ?? submissionKindOf(value);
}

/** A field's value, or undefined when it is absent or blank (mrt-dashboard leaves blanks out too). */
function valueOf(fields: ReadonlyMap<string, string>, name: string, trim = true): string | undefined {
  const value = fields.get(name);
  if (value === undefined || value.trim() === '') return undefined;
  return trim ? value.trim() : value;
}

function invalid(message: string): MerrittError {
  return new MerrittError('REQUEST_INVALID', message);
}

function typeOf(fields: ReadonlyMap<string, string>): SubmissionKind | undefined {
  const type = valueOf(fields, 'type');
  if (type === undefined) return undefined;
  const kind = kindOfFormType(type);
  if (!kind) throw invalid(`type "${type}" names no submission type (${SUBMISSION_KINDS.join(', ')})`);
  return kind;
}

function sizeOf(fields: ReadonlyMap<string, string>): number | undefined {
  const size = valueOf(fields, 'size');
  if (size === undefined) return undefined;
  if (!/^[0-9]{1,15}$/.test(size)) throw invalid(`size "${size}" is not a number of bytes`);
  return Number(size);
}

function digestOf(fields: ReadonlyMap<string, string>): { type: string; value: string } | undefined {
  const type = valueOf(fields, 'digestType');
  const value = valueOf(fields, 'digestValue');
  if (type === undefined && value === undefined) return undefined;
  if (type === undefined || value === undefined)
    throw invalid('digestType and digestValue come together: give both or neither');
  const parsed = parseDigest(type, value);
  if (typeof parsed === 'string') throw invalid(`digestValue: ${parsed}`);
  return { type, value };
}

function dcOf(fields: ReadonlyMap<string, string>): Record<string, string> | undefined {
  const entries = DC_ELEMENTS.flatMap((element) => {
    const value = valueOf(fields, `DC.${element}`, false);
    return value === undefined ? [] : [[element, value] as const];
  });
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

/** What a submission form says, checked. */
export interface PosterFields {
  profile: string;
  submitter: string;
  type: SubmissionKind | undefined;
  /** `filename`: the name the upload is known by (else the file part's own). */
  fileName: string | undefined;
  /** `responseForm` as given. */
  responseForm: string | undefined;
  /** The optional keys of the submission node, by their engine names. */
  keys: Partial<Submission>;
  /** Fields mrt-ingest does not read (ignored). */
  unknown: string[];
}

/** The optional keys, by the engine's name, from their form fields. */
function optionalKeys(fields: ReadonlyMap<string, string>): Partial<Submission> {
  const size = sizeOf(fields);
  const digest = digestOf(fields);
  const retain = valueOf(fields, 'retainTargetURL');
  const keys: Partial<Submission> = {
    erc_who: valueOf(fields, 'creator'),
    erc_what: valueOf(fields, 'title'),
    erc_when: valueOf(fields, 'date'),
    erc: valueOf(fields, 'erc', false),
    local_id: valueOf(fields, 'localIdentifier'),
    primary_id: valueOf(fields, 'primaryIdentifier') ?? valueOf(fields, 'object'),
    file_size: size,
    digest_type: digest?.type,
    digest_value: digest?.value,
    note: valueOf(fields, 'note', false),
    notification: valueOf(fields, 'notification'),
    notification_format: valueOf(fields, 'notificationFormat'),
    retain_target_url: retain === undefined ? undefined : retain.toLowerCase() === 'true',
    dc: dcOf(fields),
    datacite_resource_type: valueOf(fields, 'DataCite.resourceType'),
  };
  return Object.fromEntries(Object.entries(keys).filter(([, value]) => value !== undefined));
}

/** Reads and checks a submission form's fields (REQUEST_INVALID naming the field otherwise). */
export function readPosterFields(fields: ReadonlyMap<string, string>): PosterFields {
  const profile = valueOf(fields, 'profile');
  if (profile === undefined) throw invalid('profile: required (the ingest profile to submit under)');
  const submitter = valueOf(fields, 'submitter');
  if (submitter === undefined) throw invalid('submitter: required (who submits)');
  return {
    profile,
    submitter,
    type: typeOf(fields),
    fileName: valueOf(fields, 'filename'),
    responseForm: valueOf(fields, 'responseForm'),
    keys: optionalKeys(fields),
    unknown: [...fields.keys()].filter((name) => !POSTER_FIELDS.has(name)),
  };
}

/** What the route knows besides the form: the batch it makes and the upload it made. */
export interface PosterContext {
  mode: 'add' | 'update';
  /** The object the path names (`/poster/update/ark/13030/m5abc` → `ark:/13030/m5abc`). */
  pathId: string | undefined;
  kind: SubmissionKind;
  fileName: string;
  /** The response form the answer is written in, when the form named one. */
  responseForm: string | undefined;
  uuid: string;
  payloadUrl: string;
  collection: string;
  now: Date;
}

/**
 * The submission node of a form. An update of one object (file, container, object manifest)
 * must name it, by primary id (the path, `primaryIdentifier`, `object`) or local id: mrt-ingest
 * would mint a new ark for it, which no stored object has, so the update would fail at storage.
 * A batch manifest names its objects in its rows.
 */
export function posterSubmission(form: PosterFields, c: PosterContext): Submission {
  const primaryId = form.keys.primary_id ?? c.pathId;
  if (c.mode === 'update' && !BATCH_KINDS.includes(c.kind) && !primaryId && !form.keys.local_id) {
    throw invalid(
      'an update names the object it updates: in the path (/poster/update/ark/<naan>/<id>), ' +
        'primaryIdentifier, object or localIdentifier',
    );
  }
  const { primary_id: _given, ...rest } = form.keys;
  return {
    profile_name: form.profile,
    submitter: form.submitter,
    payload_url: c.payloadUrl,
    type: c.kind,
    submission_mode: c.mode,
    submissionDate: c.now.toISOString(),
    batchID: c.uuid,
    collection: c.collection,
    ...rest,
    ...(primaryId ? { primary_id: primaryId } : {}),
    file_name: c.fileName,
    ...(c.responseForm ? { response_form: c.responseForm } : {}),
  };
}

/** The primary id a path's `{scheme}/{shoulder}/{objectid}` names: `ark/13030/m5abc` → `ark:/13030/m5abc`. */
export function pathObjectId(params: {
  scheme?: string;
  shoulder?: string;
  objectid?: string;
}): string | undefined {
  const { scheme, shoulder, objectid } = params;
  if (!scheme || !shoulder || !objectid) return undefined;
  return `${scheme}:/${shoulder}/${objectid}`;
}
