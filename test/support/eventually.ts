/** Re-reads until `ok` holds (or the time is up, then fails naming the last value). */
export async function eventually<T>(
  read: () => T | Promise<T>,
  ok: (value: T) => boolean,
  ms = 10_000,
  everyMs = 50,
): Promise<T> {
  const until = Date.now() + ms;
  let value = await read();
  while (!ok(value)) {
    if (Date.now() > until)
      throw new Error(`condition not met within ${ms} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, everyMs));
    value = await read();
  }
  return value;
}
