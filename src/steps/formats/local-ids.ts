/**
 * Local ids as Merritt keeps them: one text with ids separated by `;` (`MintUtil.sanitize` trims
 * each, drops empty ones and repeats, and joins them with `;`).
 */

/** The local ids a value names, split at `;`, trimmed, once each, in order. */
export function splitLocalIds(value: unknown): string[] {
  const values = Array.isArray(value) ? value : [value];
  const ids = values
    .filter((item): item is string => typeof item === 'string')
    .flatMap((item) => item.split(';'))
    .map((id) => id.trim())
    .filter((id) => id !== '');
  return [...new Set(ids)];
}

/** Local ids as one text, Merritt's form (`a;b`). */
export function joinLocalIds(ids: readonly string[]): string {
  return ids.join(';');
}
