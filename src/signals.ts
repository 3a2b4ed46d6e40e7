import { constants } from 'node:os';

/**
 * How long after the first stop signal another is taken as the same one: `npm run`/`npm start`
 * forwards the signal it gets to its child, and a terminal's Ctrl-C, `timeout` or systemd's
 * control-group kill reach the whole process group, so one interrupt often arrives twice within
 * milliseconds. Only a signal after this is a second one (e.g. a second Ctrl-C: stop at once).
 */
export const REPEATED_SIGNAL_MS = 1000;

/** The exit code a shell reports for a process `signal` ended: 128 + its number (130, 143). */
export const signalExitCode = (signal: NodeJS.Signals): number => 128 + constants.signals[signal];

/**
 * Listens for SIGINT and SIGTERM: `first` is called with the first, `again` with any later one
 * that comes at least {@link REPEATED_SIGNAL_MS} after it (sooner, it is the same signal
 * delivered twice, and ignored). The handlers stay installed until the returned function is
 * called, so a second signal never meets Node's default action (the process ended mid-way).
 */
export function onStopSignals(
  first: (signal: NodeJS.Signals) => void,
  again: (signal: NodeJS.Signals) => void,
): () => void {
  let firstAt: number | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (firstAt === undefined) {
      firstAt = performance.now();
      first(signal);
    } else if (performance.now() - firstAt >= REPEATED_SIGNAL_MS) again(signal);
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return () => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}
