/**
 * Re-reads until `ok` holds (or the time is up, then fails naming the last value). A read that
 * fails with a retryable error (ZooKeeper away or slow to answer: `retryable` on the error) is
 * a value not yet there, not a failure: tests wait through outages they cause.
 */
export async function eventually<T>(
  read: () => T | Promise<T>,
  ok: (value: T) => boolean,
  ms = 10_000,
  everyMs = 50,
): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    let last: string;
    try {
      const value = await read();
      if (ok(value)) return value;
      last = `last value: ${JSON.stringify(value)}`;
    } catch (err) {
      if ((err as { retryable?: unknown }).retryable !== true) throw err;
      last = `last read failed: ${(err as Error).message}`;
    }
    if (Date.now() > until) throw new Error(`condition not met within ${ms} ms; ${last}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}
