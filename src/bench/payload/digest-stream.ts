import { createHash, type Hash } from 'node:crypto';
import { Transform, type TransformCallback } from 'node:stream';

/** The digests the profile writes into its manifests: sha256, or md5 as Merritt's Ruby client. */
export type PayloadDigest = 'sha256' | 'md5';

/** Big chunks for every file stream of the profile: fewer calls per byte. */
export const CHUNK_BYTES = 1024 * 1024;

/** Passes bytes through unchanged, hashing them on the way (Node's crypto: OpenSSL, native). */
export class DigestStream extends Transform {
  private readonly hash: Hash;
  private hex: string | undefined;

  constructor(algorithm: PayloadDigest) {
    super({ highWaterMark: CHUNK_BYTES });
    this.hash = createHash(algorithm);
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    this.hash.update(chunk);
    done(null, chunk);
  }

  override _flush(done: TransformCallback): void {
    this.hex = this.hash.digest('hex');
    done();
  }

  /** The digest in hex, once the stream has ended. */
  digest(): string {
    if (this.hex === undefined) throw new Error('DigestStream: the digest is known once the stream ends');
    return this.hex;
  }
}
