import { spawn, type ChildProcess } from 'node:child_process';

/**
 * `MRTQ_CONTENTION=N`: N busy processes beside the tests for the whole run, each spinning one
 * core, so the chaos scenarios and integration tests are shown to hold on a contended machine
 * (a busy 2-core machine is a normal machine). 0 or unset: none.
 */
export function contentionOf(env: NodeJS.ProcessEnv): number {
  const text = env.MRTQ_CONTENTION?.trim() ?? '';
  if (text === '') return 0;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 0 || n > 64)
    throw new Error(`MRTQ_CONTENTION must be a whole number of busy processes (0-64), not "${text}"`);
  return n;
}

/** Starts `count` processes that spin until stopped; the returned function stops them. */
export function startContention(count: number): () => void {
  const burners: ChildProcess[] = [];
  for (let i = 0; i < count; i++) {
    // A loop with no I/O: one core's worth of CPU, until killed; it also ends when the test run
    // that started it is gone (checked every few million turns), so a killed run leaves none.
    const loop = `for (let i = 1; ; i++) if (i % 5e6 === 0) try { process.kill(${process.pid}, 0) } catch { process.exit(0) }`;
    const burner = spawn(process.execPath, ['-e', loop], { stdio: 'ignore' });
    burner.unref();
    burners.push(burner);
  }
  return () => {
    for (const burner of burners) burner.kill('SIGKILL');
  };
}
