/** `yyyy-MM-dd HH:mm:ss Z` in UTC (`2026-11-21 09:34:25 +0000`), as mrt-zk writes `last_modified`. */
export function formatTimestamp(date: Date): string {
  const pad = (n: number): string => String(n).padStart(2, '0');
  return (
    `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ` +
    `${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())} +0000`
  );
}

/**
 * Reads `last_modified` written by this engine or by mrt-zk (Java or Ruby), which may carry any
 * zone offset. Returns undefined for text it cannot read.
 */
export function parseTimestamp(text: string): Date | undefined {
  const match = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?\s*(Z|[+-]\d{2}:?\d{2})?$/.exec(
    text.trim(),
  );
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, zone] = match;
  const offset =
    !zone || zone === 'Z' ? '+00:00' : zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
  const date = new Date(`${y}-${mo}-${d}T${h}:${mi}:${s}${offset}`);
  return Number.isNaN(date.getTime()) ? undefined : date;
}
