import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BATCH_MANIFEST_FIELDS,
  OBJECT_MANIFEST_FIELDS,
  serializeCheckm,
} from '../../steps/formats/checkm.js';
import type { PayloadDigest } from './digest-stream.js';
import type { GeneratedPayload, PayloadFile } from './generate.js';

/** The profiles Merritt's clients write in `#%profile`. */
const OBJECT_PROFILE = 'http://uc3.cdlib.org/registry/ingest/manifest/mrt-ingest-manifest';
const SINGLE_FILE_BATCH_PROFILE =
  'http://uc3.cdlib.org/registry/ingest/manifest/mrt-single-file-batch-manifest';

/** Digest names as Merritt's Ruby client writes them (`MessageDigest::SHA256#type` is `sha-256`). */
const MERRITT_DIGEST_NAMES: Readonly<Record<PayloadDigest, string>> = { sha256: 'sha-256', md5: 'md5' };

/** The fields of `POST /batches` that say what a payload is. */
export interface PayloadSubmission {
  type: GeneratedPayload['type'];
  payloadUrl: string;
  digest_type?: string;
  digest_value?: string;
  file_name?: string;
  file_size?: string;
}

/** A row of an object manifest as the Ruby client's `Component#to_manifest_entry` writes it. */
function objectRow(base: string, file: PayloadFile, algorithm: PayloadDigest): Record<string, string> {
  return {
    'nfo:fileUrl': `${base}/${file.path}`,
    'nfo:hashAlgorithm': MERRITT_DIGEST_NAMES[algorithm],
    'nfo:hashValue': file.digest,
    'nfo:fileSize': String(file.bytes),
    // The client leaves the date empty.
    'nfo:fileLastModified': '',
    'nfo:fileName': file.name,
    'mrt:mimeType': 'application/octet-stream',
  };
}

/** A row of a single-file batch manifest: one object, its file and its title. */
function batchRow(
  base: string,
  file: PayloadFile,
  algorithm: PayloadDigest,
  n: number,
): Record<string, string> {
  const { 'mrt:mimeType': _, ...row } = objectRow(base, file, algorithm);
  return { ...row, 'mrt:title': `payload bench object ${n}` };
}

/**
 * What to submit for `payload` served at `base`: a manifest written beside its files and served
 * with them (its URL is the payload URL), or, for the zip, the container's own URL with its
 * digest, size and name. `tag` keeps the manifests of two servers apart.
 */
export function submissionFor(
  root: string,
  payload: GeneratedPayload,
  base: string,
  tag: string,
  algorithm: PayloadDigest,
): PayloadSubmission {
  if (payload.type === 'container') {
    const [zip] = payload.files as [PayloadFile];
    return {
      type: 'container',
      payloadUrl: `${base}/${zip.path}`,
      digest_type: MERRITT_DIGEST_NAMES[algorithm],
      digest_value: zip.digest,
      file_name: zip.name,
      file_size: String(zip.bytes),
    };
  }
  const text =
    payload.type === 'object-manifest'
      ? serializeCheckm(
          OBJECT_MANIFEST_FIELDS,
          payload.files.map((file) => objectRow(base, file, algorithm)),
          { profile: OBJECT_PROFILE },
        )
      : serializeCheckm(
          BATCH_MANIFEST_FIELDS,
          payload.files.map((file, i) => batchRow(base, file, algorithm, i + 1)),
          { profile: SINGLE_FILE_BATCH_PROFILE },
        );
  const path = `${payload.dir}/manifest-${tag}.checkm`;
  writeFileSync(join(root, path), text);
  return { type: payload.type, payloadUrl: `${base}/${path}` };
}
