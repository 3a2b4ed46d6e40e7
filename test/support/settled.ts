/**
 * Like Promise.all, but waits for every promise to settle before rejecting with the first
 * failure. Starting several processes at once: when one fails, the others have started (and been
 * registered for cleanup) by the time the caller's cleanup runs, instead of after it.
 */
export async function allSettledOrThrow(promises: readonly Promise<unknown>[]): Promise<void> {
  const settled = await Promise.allSettled(promises);
  const failed = settled.find((s): s is PromiseRejectedResult => s.status === 'rejected');
  if (failed) throw failed.reason;
}
