import { describe, expect, it, onTestFinished } from 'vitest';
import { onStopSignals, REPEATED_SIGNAL_MS, signalExitCode } from '../../src/signals.js';

// The signals are emitted on `process`: its listeners run as for real ones.
describe('stop signals', () => {
  it('calls `first` once for one interrupt delivered twice, `again` for a later one, and nothing once removed', async () => {
    const seen: string[] = [];
    const stop = onStopSignals(
      (signal) => seen.push(`first ${signal}`),
      (signal) => seen.push(`again ${signal}`),
    );
    onTestFinished(stop);
    process.emit('SIGINT', 'SIGINT');
    process.emit('SIGINT', 'SIGINT'); // npm forwarding the same Ctrl-C
    process.emit('SIGTERM', 'SIGTERM');
    expect(seen).toEqual(['first SIGINT']);
    // A timer may fire a fraction of a millisecond early by performance.now()'s clock (seen in
    // CI: the signal taken as the same one), so the later signal comes well after the window.
    await new Promise((resolve) => setTimeout(resolve, REPEATED_SIGNAL_MS + 100));
    process.emit('SIGTERM', 'SIGTERM');
    expect(seen).toEqual(['first SIGINT', 'again SIGTERM']);
    const before = process.listenerCount('SIGTERM');
    stop();
    expect(process.listenerCount('SIGTERM')).toBe(before - 1);
  });

  it('answers the exit code a shell reports for the signal', () => {
    expect(signalExitCode('SIGINT')).toBe(130);
    expect(signalExitCode('SIGTERM')).toBe(143);
  });
});
