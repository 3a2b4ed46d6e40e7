import type { ChildProcess } from 'node:child_process';
import { onStopSignals, signalExitCode } from '../signals.js';

/**
 * What a benchmark undoes when it is interrupted (Ctrl-C, a SIGTERM) before its own `finally`
 * can: without it, its ZooKeeper, file servers and `mrtq serve` processes outlive it (a serve
 * keeps reconnecting to a ZooKeeper that is gone) and its temporary folder stays (a payload run's
 * holds gigabytes). Work registers an undo while it holds something and forgets it once its own
 * `finally` has undone it.
 */
const undos = new Set<() => unknown>();

/** Registers `undo` for an interrupt; returns the function that forgets it. */
export function onInterrupt(undo: () => unknown): () => void {
  undos.add(undo);
  return () => undos.delete(undo);
}

/** `child`, killed (SIGKILL) on an interrupt while it runs. */
export function killedOnInterrupt<C extends ChildProcess>(child: C): C {
  const forget = onInterrupt(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  child.once('exit', forget);
  return child;
}

/**
 * Runs `body`, then `undo` (also on an interrupt meanwhile: see runInterruptible); `undo` must be
 * safe to run twice, as an interrupt may come while the `finally` runs it.
 */
export async function undoneOnInterrupt<T>(undo: () => Promise<void>, body: () => Promise<T>): Promise<T> {
  const forget = onInterrupt(undo);
  try {
    return await body();
  } finally {
    forget();
    await undo();
  }
}

async function undoAll(): Promise<void> {
  const pending = [...undos].reverse(); // the latest first: a service before the ZooKeeper it uses
  undos.clear();
  for (const undo of pending) {
    try {
      await undo();
    } catch {
      // Interrupted: undo what can be undone.
    }
  }
}

/**
 * Runs `body` with SIGINT and SIGTERM undoing everything registered, latest first, and then
 * ending the process with 128 + the signal's number (130, 143), as a shell reports a process the
 * signal ended. Once interrupted, what `body` does next (it fails as its services are killed)
 * waits for that end instead of being reported. A second signal meanwhile ends the process at
 * once, unless it comes within a second of the first: the same interrupt delivered twice (see
 * onStopSignals), which ended at once would leave a payload run's gigabytes behind. The handlers
 * stay installed until then: a library's exit hook (`signal-exit`, loaded by dependencies here)
 * re-raises a signal it finds no other listener for, which would end the process before anything
 * was undone.
 */
export async function runInterruptible<T>(
  body: () => Promise<T>,
  exit: (code: number) => void = (code) => process.exit(code),
): Promise<T> {
  let interrupted: Promise<never> | undefined;
  const stopListening = onStopSignals(
    (signal) => {
      interrupted = undoAll().then(() => {
        exit(signalExitCode(signal));
        return new Promise<never>(() => undefined);
      });
    },
    (signal) => exit(signalExitCode(signal)),
  );
  try {
    let outcome: T;
    try {
      outcome = await body();
    } catch (err) {
      if (interrupted) return await interrupted;
      throw err;
    }
    return interrupted ? await interrupted : outcome;
  } finally {
    stopListening();
  }
}
