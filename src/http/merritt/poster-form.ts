import type { Readable } from 'node:stream';
import type { FastifyRequest } from 'fastify';
import type {} from '@fastify/multipart';
import { MerrittError } from './exc.js';
import type { StagedUpload } from '../routes/upload-store.js';

/** A Merritt submission form as read: its text fields, and its one file, staged on disk. */
export interface PosterForm {
  /** Each field's last value (mrt-ingest's `getFormData` keeps the last one too). */
  fields: ReadonlyMap<string, string>;
  upload: StagedUpload;
  /** The file part's own file name. */
  partName: string;
}

/** mrt-ingest's answer when no file came (`JerseyBase.getFormData`). */
const NO_FILE = 'Input file not found. Likely cause is failure to specify input file.';

async function drain(source: Readable): Promise<void> {
  for await (const _chunk of source) {
    // dropped: a part this form does not use is read to its end, so the parts after it arrive
  }
}

function textOf(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Reads a `multipart/form-data` submission part by part as it arrives: fields into a map, the
 * one file (whatever its field name, as mrt-ingest takes any file part) streamed by `stage` to
 * disk, never into memory. A file part without a file name (a browser form with no file chosen)
 * or none at all is mrt-ingest's REQUEST_INVALID; so is a second file (mrt-ingest keeps every
 * file and names the batch after the last: one file per submission here). A staged file is
 * released again when the form turns out unusable.
 */
export async function readPosterForm(
  request: FastifyRequest,
  stage: (source: Readable) => Promise<StagedUpload>,
): Promise<PosterForm> {
  const fields = new Map<string, string>();
  let upload: StagedUpload | undefined;
  let partName = '';
  let files = 0;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        if (part.valueTruncated)
          throw new MerrittError(
            'REQUEST_INVALID',
            `field ${part.fieldname}: longer than this server takes`,
            {
              httpStatus: 413,
            },
          );
        fields.set(part.fieldname, textOf(part.value));
      } else if (!part.filename || upload) {
        if (part.filename) files += 1;
        await drain(part.file);
      } else {
        files += 1;
        upload = await stage(part.file);
        partName = part.filename;
      }
    }
    if (!upload) throw new MerrittError('REQUEST_INVALID', NO_FILE);
    if (files > 1)
      throw new MerrittError('REQUEST_INVALID', `one file per submission, got ${files} file parts`);
    return { fields, upload, partName };
  } catch (err) {
    await upload?.release();
    throw err;
  }
}
