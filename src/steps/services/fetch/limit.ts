/**
 * Maps `items` with at most `limit` calls of `fn` in flight, keeping the order of the results.
 * The first failure aborts the signal the other calls got, waits for them to settle (so nothing
 * is still writing when this returns) and is then thrown.
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  signal: AbortSignal,
  fn: (item: T, index: number, signal: AbortSignal) => Promise<R>,
): Promise<R[]> {
  // One item has no siblings to stop: no signal of its own (AbortSignal.any is dear in Node 20, and
  // a one-file object runs five of these a job).
  if (items.length <= 1) return Promise.all(items.map((item, index) => fn(item, index, signal)));
  const results = new Array<R>(items.length);
  const siblings = new AbortController();
  const combined = AbortSignal.any([signal, siblings.signal]);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (!failure && next < items.length) {
      const index = next++;
      try {
        results[index] = await fn(items[index] as T, index, combined);
      } catch (error) {
        if (failure) continue;
        failure = { error };
        siblings.abort(new Error('stopped: another item failed'));
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure) throw failure.error;
  return results;
}
