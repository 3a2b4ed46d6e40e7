import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../../config/config.js';
import { packagePath } from '../../package-root.js';
import { provideZooKeeper } from '../../zk-server/provider.js';
import { undoneOnInterrupt } from '../interrupt.js';
import { chrootQueue } from '../index.js';
import type { QueueContext } from '../../queue/tree/context.js';
import { describeMachine } from '../machine.js';
import { round } from '../stats.js';
import type { PayloadDigest } from './digest-stream.js';
import { startFileServer, type FileServer } from './file-server.js';
import { generatePayload, type GeneratedPayload } from './generate.js';
import { ingestOnce, type IngestFigures } from './ingest.js';
import { measureLimit } from './limit.js';
import { submissionFor } from './manifests.js';
import { targetsOf, type PayloadProfileResult, type PayloadResult } from './report.js';
import { startIngestService, type IngestService } from './service.js';
import {
  FULL_SIZES,
  PAYLOAD_NAMES,
  QUICK_SIZES,
  rowsOf,
  type PayloadName,
  type PayloadSizes,
} from './sizes.js';

export { formatPayloadProfile, type PayloadProfileResult, type PayloadResult } from './report.js';
export type { PayloadSizes } from './sizes.js';

export interface PayloadProfileOptions {
  /** CI's sizes (QUICK_SIZES) instead of the (FULL_SIZES). */
  quick: boolean;
  /** Sizes to use instead of the profile's (a test's tiny payloads). */
  sizes?: Partial<PayloadSizes>;
  /** The manifests' digests: sha256 (default), or md5 as Merritt's Ruby client writes them. */
  digest?: PayloadDigest;
  /** How long one payload's ingest may take before the run fails (default 20 minutes). */
  timeoutMs?: number;
  /** Where results are written (default bench/results; none when empty). */
  resultsDir?: string;
  /** Progress lines (stderr). */
  progress?: (line: string) => void;
  /** The service's MRTQ_STORE_SYNC (default true): a durable store is held to the durable limit. */
  storeSync?: boolean;
  /** Only these payloads (default all). */
  payloads?: readonly PayloadName[];
}

const MiB = 1024 * 1024;

/** What every row of a run shares. */
interface RunContext {
  work: string;
  /** The file servers' root: one folder per payload. */
  root: string;
  zkServer: string;
  digest: PayloadDigest;
  timeoutMs: number;
  say: (line: string) => void;
  storeSync: boolean;
  payloads: readonly PayloadName[];
}

/**
 * The limit's two measures of a payload, in seconds, each the faster of two runs: the first warms
 * this process's code and the server's, and on this kind of machine one run of the same bytes
 * took anywhere from 1.3 to 2.6 s (2,000 x 64 KiB): the limit is what the machine allows.
 */
interface Limits {
  limit: number;
  /** The same made durable (one syncfs at the end). */
  limitSync: number;
}

async function measureLimits(
  run: RunContext,
  payload: GeneratedPayload,
  server: FileServer,
): Promise<Limits> {
  const dir = join(run.work, 'limit');
  const measure = (durable: boolean) =>
    measureLimit(server.base, payload, dir, { algorithm: run.digest, durable });
  const limit = Math.min(await measure(false), await measure(false));
  return { limit, limitSync: Math.min(await measure(true), await measure(true)) };
}

function resultOf(
  payload: GeneratedPayload,
  server: FileServer,
  { limit, limitSync }: Limits,
  ingest: IngestFigures,
  rss: number,
  warmUpObjects: number,
): PayloadResult {
  return {
    name: payload.name,
    description: payload.description,
    server_kind: server.kind,
    objects: payload.objects,
    files: payload.contentFiles,
    bytes: payload.bytes,
    limit_s: round(limit, 3),
    limit_sync_s: round(limitSync, 3),
    engine_s: round(ingest.seconds, 3),
    mb_per_s: round(payload.bytes / MiB / ingest.seconds),
    files_per_s: round(payload.contentFiles / ingest.seconds),
    objects_per_s: round(payload.objects / ingest.seconds, 2),
    ratio_to_limit: round(limit / ingest.seconds, 3),
    ratio_to_limit_sync: round(limitSync / ingest.seconds, 3),
    engine_cpu_s: round(ingest.cpuSeconds, 2),
    rss_mb_peak: round(rss),
    steps: ingest.steps,
    warm_up_objects: warmUpObjects,
  };
}

/**
 * One row: a fresh chroot and a fresh `mrtq serve` for the payload, ready before anything is
 * timed; then the machine's limit for the payload's bytes (and with fsync for the big ones), then
 * the ingest through the service. The service is killed afterwards.
 */
async function measureRow(
  run: RunContext,
  payload: GeneratedPayload,
  server: FileServer,
): Promise<PayloadResult> {
  const tag = `${payload.name}-${server.kind}`;
  const chroot = await chrootQueue(run.zkServer, `payload-${Date.now().toString(36)}-${tag}`);
  const serviceDir = join(run.work, `serve-${tag}`);
  let service: IngestService | undefined;
  try {
    const fields = submissionFor(run.root, payload, server.base, server.kind, run.digest);
    service = await startIngestService(chroot.connectString, serviceDir, { storeSync: run.storeSync });
    const warmUpObjects = await warmUp(run, service, chroot.queue, payload, server, tag);
    const limits = await measureLimits(run, payload, server);
    run.say(`${tag}: limit ${round(limits.limit, 2)} s, durable ${round(limits.limitSync, 2)} s`);
    const ingest = await ingestOnce(service, chroot.queue, fields, payload.objects, run.timeoutMs);
    const rss = await service.stop();
    run.say(
      `${tag}: engine ${round(ingest.seconds, 2)} s, CPU ${round(ingest.cpuSeconds, 2)} s, RSS ${round(rss)} MB`,
    );
    return resultOf(payload, server, limits, ingest, rss, warmUpObjects);
  } finally {
    await service?.stop();
    await chroot.zk.close();
    rmSync(serviceDir, { recursive: true, force: true });
  }
}

/** A batch payload's first objects go through the row's service once first (see warmUp). */
const WARM_UP_SHARE = 0.2;

/**
 * For a payload of many objects, its first fifth ingested as a batch of its own through the row's
 * service before anything is timed, and not counted; returns how many objects (0 for a payload of
 * one object). A service just started compiles its paths (V8), and the ZooKeeper it uses the
 * engine's (its JIT), during the first thousands of jobs: a running service meets a depositor's
 * batch warm, and the one-object payloads spend their time on bytes, not on the engine's paths.
 * The objects are new ones (no local ids), so the measured batch does the same work as before.
 */
async function warmUp(
  run: RunContext,
  service: IngestService,
  queue: QueueContext,
  payload: GeneratedPayload,
  server: FileServer,
  tag: string,
): Promise<number> {
  if (payload.objects <= 1) return 0;
  const objects = Math.max(1, Math.round(payload.objects * WARM_UP_SHARE));
  const files = payload.files.slice(0, objects);
  const part: GeneratedPayload = {
    ...payload,
    files,
    objects,
    contentFiles: objects,
    bytes: files.reduce((sum, file) => sum + file.bytes, 0),
  };
  const fields = submissionFor(run.root, part, server.base, `${tag}-warm-up`, run.digest);
  const figures = await ingestOnce(service, queue, fields, objects, run.timeoutMs);
  run.say(`${tag}: warm-up (not counted) ${objects} objects in ${round(figures.seconds, 2)} s`);
  return objects;
}

/** Every row, payload by payload, each generated just before its rows and removed after them. */
async function measureRows(
  run: RunContext,
  sizes: PayloadSizes,
  servers: Record<FileServer['kind'], FileServer>,
): Promise<PayloadResult[]> {
  const rows: PayloadResult[] = [];
  for (const name of run.payloads) {
    const payload = await generatePayload(run.root, name, sizes, run.digest);
    run.say(`${name}: ${payload.description} generated`);
    for (const row of rowsOf().filter((r) => r.payload === name))
      rows.push(await measureRow(run, payload, servers[row.server]));
    // One payload on disk at a time: the full profile's would take over 3 GiB together.
    rmSync(join(run.root, payload.dir), { recursive: true, force: true });
  }
  return rows;
}

/** Writes the results file, `<date>-payload-<quick|full>.json`, unless `dir` is empty. */
function writeResults(result: PayloadProfileResult, dir: string, say: (line: string) => void): void {
  if (dir === '') return;
  mkdirSync(dir, { recursive: true });
  const file = join(dir, `${result.date.replace(/[:.]/g, '-')}-payload-${result.profile}.json`);
  writeFileSync(file, JSON.stringify(result, null, 2) + '\n');
  say(`results written to ${file}`);
}

/**
 * Issue 36's payload profile: each payload generated (random bytes, in a temporary folder removed
 * at the end), served by a file server process on loopback, fetched by the machine's limit and
 * then ingested by a real `mrtq serve`, row by row (PAYLOAD_NAMES, each on a keep-alive server,
 * the many-files one also on a closing one). Fails only when something broke (a batch failed, a
 * process died, a timeout), never because a target was missed.
 */
export async function runPayloadProfile(
  config: Config,
  options: PayloadProfileOptions,
): Promise<PayloadProfileResult> {
  const sizes = { ...(options.quick ? QUICK_SIZES : FULL_SIZES), ...options.sizes };
  const say = options.progress ?? (() => undefined);
  const work = mkdtempSync(join(tmpdir(), 'mrtq-payload-'));
  const root = join(work, 'served');
  mkdirSync(root);
  const stops: (() => Promise<void>)[] = [];
  // Once, whether by the end of the run or by an interrupt (see interrupt.ts): the services
  // before the ZooKeeper they use, then the folder with every payload.
  const cleanUp = async () => {
    for (const stop of stops.splice(0).reverse()) await stop().catch(() => undefined);
    rmSync(work, { recursive: true, force: true });
  };
  return undoneOnInterrupt(cleanUp, async () => {
    // Stopped by cleanUp even when interrupted while it starts (a stop is safe twice).
    const zookeeper = await provideZooKeeper({
      dir: join(work, 'zookeeper'),
      config,
      onStarting: (stop) => stops.push(stop),
    });
    stops.push(() => zookeeper.stop());
    say(`ZooKeeper: ${zookeeper.connectString} (${zookeeper.source})`);
    const serve = async (kind: FileServer['kind']) => {
      const server = await startFileServer(root, kind, work);
      stops.push(() => server.stop());
      return server;
    };
    const servers = { 'keep-alive': await serve('keep-alive'), closing: await serve('closing') };
    const run: RunContext = {
      work,
      root,
      zkServer: zookeeper.connectString,
      digest: options.digest ?? 'sha256',
      timeoutMs: options.timeoutMs ?? 20 * 60_000,
      say,
      storeSync: options.storeSync ?? true,
      payloads: options.payloads ?? PAYLOAD_NAMES,
    };
    const rows = await measureRows(run, sizes, servers);
    const result: PayloadProfileResult = {
      date: new Date().toISOString(),
      profile: options.quick ? 'quick' : 'full',
      machine: await describeMachine(zookeeper.connectString),
      digest_algorithm: run.digest,
      store_sync: run.storeSync,
      sizes,
      rows,
      targets: targetsOf(rows, run.storeSync),
    };
    writeResults(result, options.resultsDir ?? packagePath('bench', 'results'), say);
    return result;
  });
}
