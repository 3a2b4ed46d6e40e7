import { createHash, randomBytes } from 'node:crypto';
import { link, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { checkSafeId } from '../queue/safe-id.js';

/**
 * An uploaded manifest's place in the upload directory. The name carries a digest of the bytes
 * (`<uuid>.<32 hex>.checkm`), so a second upload under the same uuid either names the very same
 * bytes or a file of its own: nothing a later request writes can change a stored payload.
 */
export interface UploadFile {
  path: string;
  /**
   * Writes the file unless it is already there: to a temporary name first, then linked to its
   * own name, which fails rather than replaces. The temporary name is removed either way.
   */
  store(): Promise<void>;
  /** Removes the file, when {@link UploadFile.store} created it; otherwise does nothing. */
  discard(): Promise<void>;
}

/** 128 bits of SHA-256: `<uuid>.<digest>.checkm` stays within 255 bytes for a 200-character uuid. */
const DIGEST_HEX = 32;

/** Links `from` as `to`; false when `to` exists (another upload of the same bytes stored it). */
async function linkUnlessThere(from: string, to: string): Promise<boolean> {
  try {
    await link(from, to);
    return true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw err;
  }
}

/** The file an upload of `text` under `uuid` is stored as in `dir` (checks the uuid first). */
export function uploadFile(dir: string, uuid: string, text: string): UploadFile {
  checkSafeId('uuid', uuid);
  const digest = createHash('sha256').update(text).digest('hex').slice(0, DIGEST_HEX);
  const path = join(dir, `${uuid}.${digest}.checkm`);
  let created = false;
  return {
    path,
    async store() {
      await mkdir(dir, { recursive: true });
      const temporary = join(dir, `.${uuid}.${randomBytes(8).toString('hex')}.tmp`);
      try {
        await writeFile(temporary, text, { flag: 'wx' });
        created = await linkUnlessThere(temporary, path);
      } finally {
        await rm(temporary, { force: true });
      }
    },
    async discard() {
      if (created) await rm(path, { force: true });
      created = false;
    },
  };
}
