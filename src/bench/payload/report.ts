import type { MachineDescription } from '../machine.js';
import type { PayloadDigest } from './digest-stream.js';
import type { PayloadName, PayloadSizes, ServerKind } from './sizes.js';
import type { StepTotals } from './step-metrics.js';

/** One payload served by one kind of server: the limit, the engine, and their ratio. */
export interface PayloadResult {
  name: PayloadName;
  description: string;
  server_kind: ServerKind;
  objects: number;
  files: number;
  bytes: number;
  /** The machine's limit for the same bytes: fetch + digest + write, in the same minutes. */
  limit_s: number;
  /** The same made durable (one syncfs of everything written), as the embedded store makes a version. */
  limit_sync_s: number;
  /** From the submission to the batch's completed status. */
  engine_s: number;
  /** MB of 2^20 bytes, as every MB of the bench. */
  mb_per_s: number;
  files_per_s: number;
  objects_per_s: number;
  ratio_to_limit: number;
  ratio_to_limit_sync: number;
  engine_cpu_s: number;
  rss_mb_peak: number;
  /** Seconds summed over the jobs' steps, and steps, per job state. */
  steps: StepTotals;
  /** Objects of the payload ingested first through the same service, not counted (0: none). */
  warm_up_objects: number;
}

export type Targets = Record<string, { target: string; value: number; met: boolean }>;

/** The payload profile's results file. */
export interface PayloadProfileResult {
  date: string;
  profile: 'quick' | 'full';
  machine: MachineDescription;
  digest_algorithm: PayloadDigest;
  /** The service's MRTQ_STORE_SYNC: true holds it to the durable limit. */
  store_sync: boolean;
  sizes: PayloadSizes;
  rows: PayloadResult[];
  targets: Targets;
}

/**
 * Issue 36's targets, same-run ratios on this machine; a missed one is reported, never an error.
 * The ratio is to the limit doing what the service did: a service whose store makes each version
 * durable (MRTQ_STORE_SYNC, the default) against the limit that makes its bytes durable too.
 */
export function targetsOf(rows: readonly PayloadResult[], storeSync: boolean): Targets {
  const t = (target: string, value: number, met: boolean) => ({ target, value, met });
  const targets: Targets = {};
  for (const row of rows) {
    const at = `${row.name} (${row.server_kind})`;
    if (row.server_kind === 'keep-alive') {
      const [key, ratio] = storeSync
        ? ['ratio_to_limit_sync', row.ratio_to_limit_sync]
        : ['ratio_to_limit', row.ratio_to_limit];
      if (row.name === 'big-file') targets[`${key} ${at}`] = t('>= 0.8', ratio, ratio >= 0.8);
      if (row.name === 'medium-files' || row.name === 'small-files')
        targets[`${key} ${at}`] = t('>= 0.6', ratio, ratio >= 0.6);
      if (row.name === 'one-file-objects')
        targets[`objects_per_s ${at}`] = t('>= 250', row.objects_per_s, row.objects_per_s >= 250);
    }
    targets[`rss_mb_peak ${at}`] = t('<= 300', row.rss_mb_peak, row.rss_mb_peak <= 300);
  }
  return targets;
}

const pad = (value: string | number, width: number) => String(value).padStart(width);

function rowLine(r: PayloadResult): string {
  const limit = `${pad(r.limit_s, 8)} (${r.limit_sync_s})`;
  return [
    `  ${r.name.padEnd(17)}${r.server_kind.padEnd(11)}${r.description.padEnd(38)}`,
    `${limit.padEnd(18)}${pad(r.engine_s, 8)}  ${`${r.ratio_to_limit} (${r.ratio_to_limit_sync})`.padEnd(15)}${pad(r.mb_per_s, 8)}`,
    `${pad(r.files_per_s, 9)}${pad(r.objects_per_s, 9)}${pad(r.engine_cpu_s, 7)}${pad(r.rss_mb_peak, 7)}`,
  ].join('');
}

function stepsLine(r: PayloadResult): string {
  const steps = Object.entries(r.steps)
    .sort(([, a], [, b]) => b.s - a.s)
    .map(([state, { s, count }]) => `${state} ${s} s (${count})`);
  return `    ${r.name} (${r.server_kind}): ${steps.join(', ') || 'none'}`;
}

/** The rows as a table for a terminal, the steps' time and the targets, `met` or `MISSED`. */
export function formatPayloadProfile(r: PayloadProfileResult): string {
  const m = r.machine;
  return [
    `payload profile (${r.profile}, digests ${r.digest_algorithm}) on ${m.cores} × ${m.cpu}, ${m.os}, Node ${m.node}, ZooKeeper ${m.zookeeper}`,
    '',
    `  ${'payload'.padEnd(17)}${'server'.padEnd(11)}${'what'.padEnd(38)}${'limit s (fsync)'.padEnd(18)}${pad('engine s', 8)}${'  ratio (durable)'.padEnd(17)}${pad('MB/s', 8)}${pad('files/s', 9)}${pad('objs/s', 9)}${pad('CPU s', 7)}${pad('RSS MB', 7)}`,
    ...r.rows.map(rowLine),
    ...r.rows
      .filter((row) => row.warm_up_objects > 0)
      .map(
        (row) =>
          `  ${row.name} (${row.server_kind}): ${row.warm_up_objects} objects of it ingested first through the same service, not counted`,
      ),
    '',
    '  where the engine spent its time (seconds summed over jobs per state, and steps):',
    ...r.rows.map(stepsLine),
    '',
    '  targets:',
    ...Object.entries(r.targets).map(
      ([k, t]) => `    ${t.met ? 'met   ' : 'MISSED'} ${k} ${t.target}: ${t.value}`,
    ),
  ].join('\n');
}
