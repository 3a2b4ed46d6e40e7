import type { ProvisionOutput } from '../../../machines/index.js';

/** The part of `fs.statfs` provisioning reads (block size, total, free and available blocks). */
export interface SpaceStats {
  bsize: number;
  blocks: number;
  /** Free blocks, including those reserved for the superuser. */
  bfree: number;
  /** Free blocks an unprivileged user may write. */
  bavail: number;
}

/**
 * The working file system as the engine (an unprivileged user) sees it, as `df` shows it: blocks
 * reserved for the superuser are neither used nor free, so capacity is used plus available.
 */
export interface Space {
  capacity: number;
  used: number;
  free: number;
}

/** What provisioning decides by. */
export interface ProvisionRule {
  /** The working storage may be at most this full (0..1) once the job is added. */
  maxUsedFraction: number;
  /** The largest object this machine takes; default: what the fraction allows of the whole capacity. */
  maxObjectBytes?: number;
  /** How long a job may wait for space before it fails. */
  spaceWaitLimitMs: number;
}

export function spaceOf(stats: SpaceStats): Space {
  const used = Math.max(0, stats.blocks - stats.bfree) * stats.bsize;
  const free = stats.bavail * stats.bsize;
  return { capacity: used + free, used, free };
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit === 0 ? value : value.toFixed(1)} ${units[unit]}`;
}

/** A wait as messages show it: `1.2 s`, `45 s`, `12 min`, `3.5 h`, `2.0 d`. */
export function formatWait(ms: number): string {
  const s = ms / 1000;
  if (s < 10) return `${s.toFixed(1)} s`;
  if (s < 120) return `${Math.round(s)} s`;
  if (s < 7200) return `${Math.round(s / 60)} min`;
  if (s < 172_800) return `${(s / 3600).toFixed(1)} h`;
  return `${(s / 86_400).toFixed(1)} d`;
}

const percent = (fraction: number): string => `${(fraction * 100).toFixed(1)}%`;

/** The largest object provisioning could ever admit here, and how that limit comes about. */
function objectLimit(space: Space, rule: ProvisionRule, where: string): { bytes: number; why: string } {
  if (rule.maxObjectBytes !== undefined)
    return { bytes: rule.maxObjectBytes, why: 'the largest object this machine is configured to take' };
  return {
    bytes: Math.floor(space.capacity * rule.maxUsedFraction),
    why: `the most a job may use of the ${formatBytes(space.capacity)} writable on ${where} (${percent(rule.maxUsedFraction)})`,
  };
}

/** Why there is not enough space now, or undefined when there is. */
export function shortage(
  space: Space,
  needed: number,
  maxUsedFraction: number,
  where: string,
): string | undefined {
  const usedAfter = space.capacity > 0 ? (space.used + needed) / space.capacity : 1;
  if (needed <= space.free && usedAfter <= maxUsedFraction) return undefined;
  return (
    `needs ${formatBytes(needed)}, ${formatBytes(space.free)} free of ${formatBytes(space.capacity)} on ${where}; ` +
    `it would be ${percent(usedAfter)} full, the limit is ${percent(maxUsedFraction)}`
  );
}

/** What a job that cannot go on yet says: how long it has waited, and when it will give up. */
export function waitOutcome(reason: string, waitedMs: number, limitMs: number): ProvisionOutput {
  if (waitedMs >= limitMs)
    return {
      hasSpace: false,
      giveUp: true,
      message: `gave up after waiting ${formatWait(waitedMs)} for working space (the limit is ${formatWait(limitMs)}): ${reason}`,
    };
  return {
    hasSpace: false,
    message: `waiting ${formatWait(waitedMs)} so far for working space (gives up after ${formatWait(limitMs)}): ${reason}`,
    retryInMs: limitMs - waitedMs,
  };
}

/**
 * The provisioning decision (seed 003, with bounds): an object larger than any space this
 * machine could give it fails at once, naming its size and the limit; one that fits goes on;
 * any other waits, saying for how long, until it has waited `spaceWaitLimitMs`.
 */
export function provisionOutcome(
  stats: SpaceStats,
  needed: number,
  rule: ProvisionRule,
  where: string,
  waitedMs: number,
): ProvisionOutput {
  const space = spaceOf(stats);
  const limit = objectLimit(space, rule, where);
  if (needed > limit.bytes)
    return {
      hasSpace: false,
      giveUp: true,
      message: `the object needs ${formatBytes(needed)} (${needed} bytes), more than ${formatBytes(limit.bytes)} (${limit.bytes} bytes), ${limit.why}`,
    };
  const short = shortage(space, needed, rule.maxUsedFraction, where);
  return short === undefined ? { hasSpace: true } : waitOutcome(short, waitedMs, rule.spaceWaitLimitMs);
}
