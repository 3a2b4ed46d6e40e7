import { createWriteStream, mkdirSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Agent, request } from 'undici';
import yauzl from 'yauzl';
import { mapLimit } from '../../steps/services/fetch/limit.js';
import { CHUNK_BYTES, DigestStream, type PayloadDigest } from './digest-stream.js';
import type { GeneratedPayload, ZipEntryFigure } from './generate.js';
import { syncFileSystem } from '../../steps/workdir/files.js';

/** Requests in flight at once, each on its own kept-alive connection. */
const PARALLEL = 8;

export interface LimitOptions {
  algorithm: PayloadDigest;
  /** Everything written made durable (one syncfs) before it counts as done. */
  durable: boolean;
}

/** Writes a stream to `path` in big writes, hashing it on the way; returns the digest. */
async function hashInto(source: NodeJS.ReadableStream, path: string, algorithm: PayloadDigest) {
  const digest = new DigestStream(algorithm);
  await pipeline(source, digest, createWriteStream(path, { highWaterMark: CHUNK_BYTES }));
  return digest.digest();
}

/** GET `url` into `path`, hashed while it streams. */
async function fetchInto(agent: Agent, url: string, path: string, options: LimitOptions): Promise<string> {
  const { statusCode, body } = await request(url, { dispatcher: agent });
  if (statusCode !== 200) {
    await body.dump();
    throw new Error(`limit: GET ${url} answered ${statusCode}`);
  }
  return hashInto(body, path, options.algorithm);
}

/** Unpacks a zip (yauzl, one entry after another), hashing each entry with SHA-256; returns them. */
async function unpack(zipPath: string, into: string): Promise<ZipEntryFigure[]> {
  const zip = await yauzl.openPromise(zipPath, { lazyEntries: true });
  const found: ZipEntryFigure[] = [];
  try {
    for await (const entry of zip.eachEntry()) {
      if (entry.fileName.endsWith('/')) continue;
      const path = join(into, entry.fileName);
      mkdirSync(dirname(path), { recursive: true });
      const sha256 = await hashInto(await zip.openReadStreamPromise(entry), path, 'sha256');
      found.push({ name: entry.fileName, bytes: entry.uncompressedSize, sha256 });
    }
  } finally {
    zip.close();
  }
  return found;
}

/** Throws when the limit's bytes are not the payload's: a limit that read wrong bytes measures nothing. */
function check(payload: GeneratedPayload, digests: string[], entries: ZipEntryFigure[] | undefined): void {
  const wrong = payload.files.findIndex((file, i) => file.digest !== digests[i]);
  if (wrong >= 0) throw new Error(`limit: ${payload.files[wrong]!.path} arrived with another digest`);
  if (!payload.entries) return;
  const unpacked = new Map(entries?.map((e) => [e.name, e.sha256]));
  const missing = payload.entries.find((e) => unpacked.get(e.name) !== e.sha256);
  if (missing || unpacked.size !== payload.entries.length)
    throw new Error(`limit: the zip unpacked to other entries (${missing?.name ?? 'count'})`);
}

/**
 * The machine's limit for a payload's bytes, in seconds: every file fetched from the same server
 * the engine fetches from (PARALLEL requests at once over kept-alive connections; one stream for
 * one file), hashed with Node's native hash while it streams, written to disk in 1 MiB writes
 * (and made durable by one syncfs when `durable`), done when the last file is closed. A zip is then unpacked with
 * each entry hashed (SHA-256) and written. The files go under `dir`, removed afterwards.
 */
export async function measureLimit(
  base: string,
  payload: GeneratedPayload,
  dir: string,
  options: LimitOptions,
): Promise<number> {
  rmSync(dir, { recursive: true, force: true });
  const agent = new Agent({ connections: PARALLEL, keepAliveTimeout: 30_000 });
  try {
    const started = performance.now();
    for (const folder of new Set(payload.files.map((file) => dirname(file.path))))
      mkdirSync(join(dir, folder), { recursive: true });
    const digests = await mapLimit(payload.files, PARALLEL, new AbortController().signal, (file) =>
      fetchInto(agent, `${base}/${file.path}`, join(dir, file.path), options),
    );
    const entries = payload.entries
      ? await unpack(join(dir, payload.files[0]!.path), join(dir, 'unpacked'))
      : undefined;
    // Durable as well as the machine allows: one syncfs of the file system for everything written
    // (an fsync a file costs a journal commit each: 5,000 files of 4 KiB: 1.25 s so, 0.07 s this way, by hand).
    if (options.durable && !(await syncFileSystem(dir))) throw new Error('limit: `sync -f` could not run');
    const seconds = (performance.now() - started) / 1000;
    check(payload, digests, entries);
    return seconds;
  } finally {
    await agent.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
