import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { serveCommand } from '../../serve-flags.js';
import { freePort } from '../../zk-server/free-port.js';
import { watchRss } from '../scale-service.js';
import { killedOnInterrupt } from '../interrupt.js';

/** The last words of the service kept for an error message. */
const OUTPUT_KEPT = 8_000;

/** A `mrtq serve` process running the ingest steps, started for one payload. */
export interface IngestService {
  base: string;
  pid: number;
  /** The bearer token its API takes submissions with. */
  token: string;
  /** Why it is not usable any more (it exited), or undefined while it runs. */
  gone(): string | undefined;
  /** Stops it (SIGKILL) and returns its peak resident memory since spawn, MB. */
  stop(): Promise<number>;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until GET /readyz answers 200: start-up done, session live, consumers running. */
async function untilReady(base: string, gone: () => string | undefined, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const why = gone();
    if (why) throw new Error(why);
    const ready = await fetch(`${base}/readyz`).then(
      async (response) => {
        await response.body?.cancel();
        return response.ok;
      },
      () => false,
    );
    if (ready) return;
    if (Date.now() > deadline) throw new Error(`mrtq serve was not ready within ${timeoutMs / 1000} s`);
    await pause(50);
  }
}

/**
 * Starts `mrtq serve` with the ingest steps on their embedded defaults (local minter, storage and
 * inventory, reports to the outbox), everything it writes under `dir` (data directory, work root,
 * home, so no config file of the developer's is read), the HTTP API on a free loopback port with
 * a token of its own, no sweep and no cleanup, logging warnings only; resolves once it is ready.
 */
export async function startIngestService(
  connectString: string,
  dir: string,
  { storeSync = true }: { storeSync?: boolean } = {},
): Promise<IngestService> {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const token = randomBytes(16).toString('hex');
  const serve = serveCommand([
    '--zk',
    connectString,
    '--steps',
    'ingest',
    '--sweep',
    '0',
    '--http-port',
    String(port),
  ]);
  const child = killedOnInterrupt(
    spawn(serve.command, serve.argv, {
      cwd: dir,
      env: {
        ...process.env,
        ZK_CONNECT: '',
        MRTQ_HOME: dir,
        MRTQ_STORE_SYNC: String(storeSync),
        MRTQ_CONFIG: '',
        MRTQ_DATA_DIR: join(dir, 'data'),
        MRTQ_WORK_ROOT: join(dir, 'work'),
        MRTQ_API_TOKEN: token,
        MRTQ_CLEANUP_INTERVAL_MS: '0',
        LOG_LEVEL: 'warn',
        OTEL_EXPORTER_OTLP_ENDPOINT: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  const rss = watchRss(child.pid!);
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-OUTPUT_KEPT));
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const closed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  const gone = () =>
    child.exitCode === null && child.signalCode === null
      ? undefined
      : `mrtq serve exited (${child.exitCode ?? child.signalCode}):\n${output.slice(-3000)}`;
  const service: IngestService = {
    base: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    token,
    gone,
    async stop() {
      const peak = rss.stop();
      if (!gone()) child.kill('SIGKILL');
      await closed;
      return peak;
    },
  };
  try {
    await untilReady(service.base, gone, 60_000);
  } catch (err) {
    await service.stop();
    throw err;
  }
  return service;
}
