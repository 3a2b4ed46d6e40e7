import { Writable } from 'node:stream';
import { pino, type Logger } from 'pino';
import { loadConfig, type Config } from '../../src/config.js';

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
