import { mkdir, statfs as fsStatfs } from 'node:fs/promises';
import type { MerrittJobSteps } from '../contracts.js';
import { workDirOf, type IngestSettings } from './contracts.js';

/** The part of `fs.statfs` provisioning reads (block size, total blocks, blocks available to us). */
export interface SpaceStats {
  bsize: number;
  blocks: number;
  bavail: number;
}

/** Reads the space of the file system holding `path`. */
export type StatfsFn = (path: string) => Promise<SpaceStats>;

/** What the provision step is built from (composition root). */
export interface ProvisionDeps {
  settings: IngestSettings;
  /** Defaults to `fs.promises.statfs`; tests inject a fuller or emptier disk. */
  statfs?: StatfsFn;
}

function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

const percent = (fraction: number): string => `${(fraction * 100).toFixed(1)}%`;

/** Why there is not enough space, or undefined when there is. */
export function shortage(
  stats: SpaceStats,
  needed: number,
  maxUsedFraction: number,
  where: string,
): string | undefined {
  const total = stats.blocks * stats.bsize;
  const free = stats.bavail * stats.bsize;
  const usedAfter = total > 0 ? (total - free + needed) / total : 1;
  if (needed <= free && usedAfter <= maxUsedFraction) return undefined;
  return (
    `needs ${formatBytes(needed)}, ${formatBytes(free)} free of ${formatBytes(total)} on ${where}; ` +
    `it would be ${percent(usedAfter)} full, the limit is ${percent(maxUsedFraction)}`
  );
}

/**
 * The provisioning step (seed 003): a job proceeds only when its space needed fits and the
 * working storage stays at most `maxUsedFraction` full afterwards; otherwise it stays in
 * provisioning with a message naming needed, free and the threshold (re-evaluated later).
 * With space, the job's working directory is created.
 */
export function createProvisionStep(deps: ProvisionDeps): MerrittJobSteps['provision'] {
  const { settings } = deps;
  const statfs: StatfsFn = deps.statfs ?? ((path) => fsStatfs(path));
  return async ({ job, signal, log }) => {
    await mkdir(settings.workRoot, { recursive: true });
    const stats = await statfs(settings.workRoot);
    signal.throwIfAborted();
    const message = shortage(stats, job.spaceNeeded, settings.maxUsedFraction, settings.workRoot);
    if (message) {
      log.info({ jobId: job.jobId, spaceNeeded: job.spaceNeeded }, `not enough working space: ${message}`);
      return { hasSpace: false, message };
    }
    await mkdir(workDirOf(settings.workRoot, job.batchId, job.jobId), { recursive: true });
    return { hasSpace: true };
  };
}
