import { randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { readJsonIfPresent } from '../workdir/files.js';

/**
 * The token status of an access request, as mrt-store keeps it: the queue node's token names it
 * (a bare random UUID, merritt-protocols.md §7), and mrt-store saves the request's details
 * (object, version, archive type…) under `<token>/status` in the delivery node's cloud storage
 * (`TokenManager`, `TokenStatus.getJson`). The embedded store keeps the same JSON, under the same
 * key, at `<dataDir>/access/<token>/status`. Field names are mrt-store's.
 */
export interface TokenStatus {
  token: string;
  /** The object's ark. */
  objectIDS: string;
  /** The version to assemble; 0 or absent: the current one (mrt-store's convention). */
  versionID?: number;
  /** `Queued` when asked for, `NotReady` while building, `OK` when built, `SERVICE_EXCEPTION`… */
  tokenStatusEnum?: string;
  archiveType?: string;
  deliveryNode?: number;
  cloudContentBytes?: number;
  buildEnd?: number;
  exMsg?: string;
  [key: string]: unknown;
}

/** A token usable as a file name: mrt-store's are UUIDs; nothing that can leave the directory. */
const TOKEN = /^[A-Za-z0-9_-]{1,128}$/;

/** Whether `token` can name a token status here (a UUID or similar). */
export const isUsableToken = (token: string): boolean => TOKEN.test(token);

export function tokenStatusPath(dataDir: string, token: string): string {
  if (!isUsableToken(token)) throw new Error(`access token ${JSON.stringify(token)} cannot name a file`);
  return join(dataDir, 'access', token, 'status');
}

/** The token status the embedded store holds for `token`, or undefined when it holds none. */
export async function readTokenStatus(dataDir: string, token: string): Promise<TokenStatus | undefined> {
  const path = tokenStatusPath(dataDir, token);
  const json = await readJsonIfPresent(path);
  if (json === undefined) return undefined;
  if (typeof json !== 'object' || json === null || typeof (json as TokenStatus).objectIDS !== 'string')
    throw new Error(`${path} is not a token status (it names no objectIDS)`);
  return json as TokenStatus;
}

/** Writes a token status whole (temporary file, then rename), as a re-run after a crash expects. */
export async function writeTokenStatus(dataDir: string, status: TokenStatus): Promise<void> {
  const path = tokenStatusPath(dataDir, status.token);
  await mkdir(join(path, '..'), { recursive: true });
  const temp = `${path}.tmp-${randomBytes(4).toString('hex')}`;
  await writeFile(temp, `${JSON.stringify(status)}\n`);
  await rename(temp, path);
}
