import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CliResult } from '../../support/run-cli.js';

const ROOT = join(import.meta.dirname, '..', '..', '..');
const { version } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string };
const DESCRIPTION = 'Merritt ingest queue on Apache ZooKeeper';
const EDITED = 'an edit of the sources not yet built';

function run(file: string, args: string[], cwd: string): Promise<CliResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [file, ...args],
      { cwd, env: { ...process.env, ZK_CONNECT: '', MRTQ_FROM_SOURCE: '' }, timeout: 240_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

/**
 * A copy of the package (its node_modules linked) built with `npm run build`'s script, so the
 * build and the edits below touch nothing the other tests run.
 */
describe('mrtq starts from its JavaScript build when it is current, else from the sources (issue 21, item 7)', () => {
  let pkg: string;
  let bin: string;
  let program: string;

  beforeAll(async () => {
    pkg = mkdtempSync(join(tmpdir(), 'mrtq-build-'));
    for (const part of ['bin', 'src', 'machines', 'otel', 'scripts'])
      cpSync(join(ROOT, part), join(pkg, part), { recursive: true });
    for (const file of ['package.json', 'tsconfig.json', 'tsconfig.build.json'])
      cpSync(join(ROOT, file), join(pkg, file));
    symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'), 'dir');
    // Sources older than the build, as after a clone and `npm ci`.
    const past = new Date(Date.now() - 3_600_000);
    program = join(pkg, 'src', 'cli', 'program.ts');
    utimesSync(program, past, past);
    const build = await run(join(pkg, 'scripts', 'build.mjs'), [], pkg);
    expect(build, build.stdout + build.stderr).toMatchObject({ code: 0 });
    bin = join(pkg, 'bin', 'mrtq.js');
  }, 300_000);

  afterAll(() => {
    if (pkg) rmSync(pkg, { recursive: true, force: true });
  });

  it('--help and --version work from the build, from any directory', async () => {
    const help = await run(bin, ['--help'], tmpdir());
    expect(help.code).toBe(0);
    expect(help.stdout).toContain(DESCRIPTION);
    for (const command of ['serve', 'submit [options] <payload>', 'jobs [options]', 'doctor [options]'])
      expect(help.stdout).toContain(command);
    expect(await run(bin, ['--version'], tmpdir())).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    const serveHelp = await run(bin, ['serve', '--help'], tmpdir());
    expect(serveHelp.code).toBe(0);
    expect(serveHelp.stdout).toContain('--http-port <port>');
  }, 60_000);

  it('runs the build while the sources are as built, and the sources as soon as one is edited', async () => {
    // An edit dated before the build: the build is current and runs, so the edit is not seen.
    writeFileSync(program, readFileSync(program, 'utf8').replace(`'${DESCRIPTION}'`, `'${EDITED}'`));
    const past = new Date(Date.now() - 3_600_000);
    utimesSync(program, past, past);
    const fromBuild = await run(bin, ['--help'], tmpdir());
    expect(fromBuild.stdout).toContain(DESCRIPTION);
    expect(fromBuild.stdout).not.toContain(EDITED);

    // The same edit dated now, as an editor saves it: the stale build is not run.
    const now = new Date();
    utimesSync(program, now, now);
    const fromSource = await run(bin, ['--help'], tmpdir());
    expect(fromSource.code).toBe(0);
    expect(fromSource.stdout).toContain(EDITED);
    expect(await run(bin, ['--version'], tmpdir())).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
  }, 120_000);
});
