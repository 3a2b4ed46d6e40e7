/**
 * What must run before the process exits (flushing spans): the tracing bootstrap registers it,
 * the command line runs it. Kept here so src/ never imports the bootstrap.
 */
const hooks: ((timeoutMs: number) => Promise<void>)[] = [];

export function onTelemetryShutdown(hook: (timeoutMs: number) => Promise<void>): void {
  hooks.push(hook);
}

/** Runs every hook once, each bounded by `timeoutMs`; never throws (exiting must not fail on it). */
export async function shutdownTelemetry(timeoutMs = 5000): Promise<void> {
  const pending = hooks.splice(0);
  await Promise.all(
    pending.map((hook) => {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        // A hook gets `timeoutMs` and should finish in it; the margin lets it say that it could not.
        timer = setTimeout(resolve, timeoutMs + 500);
        timer.unref();
      });
      return Promise.race([hook(timeoutMs).catch(() => undefined), timeout]).finally(() =>
        clearTimeout(timer),
      );
    }),
  );
}
