import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { loadConfig, type Config } from '../../src/config/config.js';
import { listBatchJobs } from '../../src/queue/batches/jobs.js';
import type { QueueContext } from '../../src/queue/tree/context.js';
import { loadJob, type JobRecord } from '../../src/queue/jobs/load.js';
import { eventually } from './eventually.js';

/** A log line as pino writes it, parsed. */
export type LogLine = Record<string, unknown> & { level: number; msg: string };

/** Where a test's engine runs in a Merritt deployment: its ZooKeeper, data, profiles and public URL. */
export interface MerrittServiceSetup {
  connectString: string;
  dataDir: string;
  publicUrl: string;
  profilesDir?: string;
  /** Further settings (MRTQ_STORAGE_SERVICE…), over the ones above. */
  env?: NodeJS.ProcessEnv;
}

/** The configuration of an engine in a Merritt deployment (MRTQ_DEPLOYMENT=merritt), for a test. */
export function merrittConfig(setup: MerrittServiceSetup): Config {
  return loadConfig({
    ...process.env,
    ZK_CONNECT: setup.connectString,
    MRTQ_DATA_DIR: setup.dataDir,
    ...(setup.profilesDir ? { MRTQ_PROFILES_DIR: setup.profilesDir } : {}),
    MRTQ_DEPLOYMENT: 'merritt',
    MRTQ_PUBLIC_URL: setup.publicUrl,
    ...setup.env,
  });
}

/** A pino logger whose lines land, parsed, in `lines` (what a test reads the engine's log from). */
export function capturingLogger(lines: LogLine[], level = 'info'): Logger {
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const text of chunk.toString('utf8').split('\n').filter(Boolean))
        lines.push(JSON.parse(text) as LogLine);
      done();
    },
  });
  return pino({ level }, sink);
}

/**
 * The one job of batch `bid` once it has left the ingest steps: in storing (handed to storage,
 * where a Merritt-mode engine leaves it) or failed (the caller's assertion shows the message).
 */
export async function handedToStorage(ctx: QueueContext, bid: string): Promise<JobRecord> {
  const [ref] = await eventually(
    () => listBatchJobs(ctx, bid),
    (jobs) => jobs.length === 1,
    30_000,
  );
  return eventually(
    () => loadJob(ctx, ref!.jid),
    (job) => job.status === 'storing' || job.status === 'failed',
    60_000,
    100,
  );
}
