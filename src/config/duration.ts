/** Durations as operators write them (`7d`, `12h`, `30m`, `45s`, `500ms`, `1w`). */

const UNITS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

/** Milliseconds of a duration such as `7d`, `12h`, `30m`, `45s`, `500ms`, `1w`; undefined when unreadable. */
export function parseDuration(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d|w)$/i.exec(text.trim());
  if (!match) return undefined;
  return Math.round(Number(match[1]) * (UNITS[match[2]!.toLowerCase()] ?? Number.NaN));
}

/** `ms` as the shortest duration `parseDuration` reads back exactly: 604800000 → `1w`, 600000 → `10m`. */
export function formatDuration(ms: number): string {
  const units = Object.entries(UNITS).sort(([, a], [, b]) => b - a);
  for (const [unit, size] of units) if (ms >= size && ms % size === 0) return `${ms / size}${unit}`;
  return `${ms}ms`;
}

/** A moment as operators write it: an ISO 8601 time, or a duration back from `now` (`7d`, `1h`); undefined when unreadable. */
export function parseMoment(text: string, now = Date.now()): Date | undefined {
  const ago = parseDuration(text);
  if (ago !== undefined) return new Date(now - ago);
  const at = new Date(text);
  return Number.isNaN(at.getTime()) ? undefined : at;
}
