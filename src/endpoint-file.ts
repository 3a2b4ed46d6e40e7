import { readFileSync, renameSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';

/**
 * What a running `mrtq serve` tells the command line (README, "Where ZooKeeper comes from"): the
 * ZooKeeper it uses and where its API and dashboard are. Written to `<dataDir>/endpoint.json` once
 * the service runs, removed when it stops cleanly; one left by a service that died is stale.
 */
export interface EndpointRecord {
  pid: number;
  host: string;
  /** The connection string the service's session uses (with its chroot). */
  connectString: string;
  /** The HTTP API's base URL, reachable from this host; absent with `--no-http`. */
  httpUrl?: string;
  /** The dashboard's URL (`<httpUrl>/ui/`). */
  dashboardUrl?: string;
  startedAt: string;
}

/** What {@link readEndpoint} found: a live service's record, a stale record, or nothing. */
export type EndpointLookup =
  | { kind: 'live'; file: string; record: EndpointRecord }
  | { kind: 'stale'; file: string; record: EndpointRecord }
  | { kind: 'none'; file: string };

/** `<dataDir>/endpoint.json`. */
export function endpointFileOf(dataDir: string): string {
  return join(dataDir, 'endpoint.json');
}

/** A URL a wildcard listener (`0.0.0.0`, `::`) is reached at from this host: loopback. */
export function reachableUrl(url: string): string {
  return url.replace('//0.0.0.0:', '//127.0.0.1:').replace('//[::]:', '//[::1]:');
}

/** Writes the record (whole, through a rename, so a reader never sees half of it). */
export function writeEndpoint(dataDir: string, record: EndpointRecord): string {
  const file = endpointFileOf(dataDir);
  mkdirSync(dataDir, { recursive: true });
  const partial = `${file}.${record.pid}.tmp`;
  writeFileSync(partial, JSON.stringify(record, null, 2) + '\n');
  renameSync(partial, file);
  return file;
}

/** Removes the record if it is still this process's (another service may have written it since). */
export function removeEndpoint(dataDir: string, pid: number = process.pid): void {
  const found = readRecord(endpointFileOf(dataDir));
  if (found?.pid === pid) rmSync(endpointFileOf(dataDir), { force: true });
}

function readRecord(file: string): EndpointRecord | undefined {
  try {
    const record = JSON.parse(readFileSync(file, 'utf8')) as Partial<EndpointRecord>;
    if (typeof record.pid !== 'number' || typeof record.connectString !== 'string') return undefined;
    return record as EndpointRecord;
  } catch {
    return undefined;
  }
}

/**
 * Whether the process that wrote a record still runs: a record from another host is trusted (its
 * pid cannot be checked from here); on this host the pid must be alive and, where /proc tells,
 * still an `mrtq` process (pids are reused).
 */
function isRunning(record: EndpointRecord): boolean {
  if (record.host !== hostname()) return true;
  try {
    process.kill(record.pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    return readFileSync(`/proc/${record.pid}/cmdline`, 'utf8').includes('mrtq');
  } catch {
    return true; // no /proc (macOS): the live pid is enough
  }
}

/** The running service's record under `dataDir`, or why there is none. */
export function readEndpoint(dataDir: string): EndpointLookup {
  const file = endpointFileOf(dataDir);
  const record = readRecord(file);
  if (!record) return { kind: 'none', file };
  return { kind: isRunning(record) ? 'live' : 'stale', file, record };
}
