import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const SCRIPT = join(import.meta.dirname, '..', '..', 'scripts', 'test-summary.mjs');
const dir = mkdtempSync(join(tmpdir(), 'test-summary-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs the CI summary script on a report file; returns what it printed and its exit code. */
function run(reportFile: string): { line: string; code: number } {
  try {
    return {
      line: execFileSync(process.execPath, [SCRIPT, reportFile], { encoding: 'utf8' }).trim(),
      code: 0,
    };
  } catch (err) {
    const e = err as { stdout: string; status: number };
    return { line: e.stdout.trim(), code: e.status };
  }
}

let reports = 0;
function summarise(report: unknown): { line: string; code: number } {
  const reportFile = join(dir, `${++reports}.json`);
  writeFileSync(reportFile, JSON.stringify(report));
  return run(reportFile);
}

const file = (status: string, tests: string[]) => ({
  status,
  assertionResults: tests.map((s) => ({ status: s })),
});

describe('the CI test summary line', () => {
  it('counts a failed test once, though vitest counts each describe around it as a failed suite', () => {
    const out = summarise({
      numPassedTests: 2,
      numFailedTests: 1,
      numFailedTestSuites: 3,
      testResults: [file('failed', ['passed', 'failed']), file('passed', ['passed'])],
    });
    expect(out).toEqual({ line: '2 passed, 1 failed', code: 1 });
  });

  it('counts a file that failed with no failed test in it (it did not load) as a failure', () => {
    const out = summarise({
      numPassedTests: 1,
      numFailedTests: 0,
      numFailedTestSuites: 1,
      testResults: [file('failed', []), file('passed', ['passed'])],
    });
    expect(out).toEqual({ line: '1 passed, 1 failed', code: 1 });
  });

  it('exits 0 only when tests passed and none failed, and says what was skipped', () => {
    const ok = summarise({ numPassedTests: 3, numFailedTests: 0, numPendingTests: 1, testResults: [] });
    expect(ok).toEqual({ line: '3 passed, 0 failed, 1 skipped', code: 0 });
    expect(summarise({ numPassedTests: 0, numFailedTests: 0, testResults: [] }).code).toBe(1);
  });

  it('fails with a line CI can count when there is no report', () => {
    const out = run(join(dir, 'missing.json'));
    expect(out.line.split('\n').at(-1)).toBe('0 passed, 1 failed');
    expect(out.code).toBe(1);
  });
});
