import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const DIR = join(import.meta.dirname, '..', '..', '..', 'otel', 'prometheus');

/** Why promtool cannot run here, or undefined when it can (Debian's `prometheus` package has it). */
function promtoolMissing(): string | undefined {
  const probe = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
  if (probe.error) return `promtool is not installed (apt-get install -y prometheus): ${probe.error.message}`;
  return probe.status === 0 ? undefined : `promtool --version exited ${probe.status}: ${probe.stderr}`;
}

const missing = promtoolMissing();
if (missing) console.log(`the Prometheus rule file's promtool checks: skipped, ${missing}`);

function promtool(...args: string[]): { status: number | null; output: string } {
  const run = spawnSync('promtool', args, { cwd: DIR, encoding: 'utf8' });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

describe.skipIf(missing !== undefined)(
  `otel/prometheus/alerts.yml under promtool${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    it('is a valid rule file with one alert per mrtq rule and one for stale evaluations', () => {
      const check = promtool('check', 'rules', 'alerts.yml');
      expect(check.output).toContain('SUCCESS: 6 rules found');
      expect(check.status).toBe(0);
    });

    it('passes its unit tests: each alert fires while mrtq says its rule fires, once for several processes', () => {
      const test = promtool('test', 'rules', 'alerts.test.yml');
      expect(test.output).toContain('SUCCESS');
      expect(test.status).toBe(0);
    });
  },
);
