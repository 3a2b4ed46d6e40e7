import { mkdir, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCompletedStep } from '../../../src/steps/job/completed.js';
import type { IngestSettings } from '../../../src/config/ingest-settings.js';
import { jobRecord, outputSettings, prepareWorkDir, workDirFor } from './output-fixtures.js';

const log = pino({ level: 'silent' });
const signal = new AbortController().signal;

describe('the completed step', () => {
  let root: string;
  let settings: IngestSettings;
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'mrtq-completed-'));
    settings = outputSettings(root);
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  it("removes the job's working directory, then the batch's once it is empty; again is a no-op", async () => {
    const one = jobRecord('jid0000000001', { status: 'completed' });
    const two = jobRecord('jid0000000002', { status: 'completed' });
    await prepareWorkDir(workDirFor(settings, one), { 'a.txt': 'a', 'deep/er/b.txt': 'b' });
    await mkdir(join(workDirFor(settings, one), 'system'), { recursive: true });
    await prepareWorkDir(workDirFor(settings, two), { 'c.txt': 'c' });
    const completed = createCompletedStep({ settings });

    await completed({ job: one, signal, log });
    await expect(stat(workDirFor(settings, one))).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readdir(join(settings.workRoot, 'bid0000000001'))).toEqual(['jid0000000002']);

    await completed({ job: two, signal, log });
    expect(await readdir(settings.workRoot)).toEqual([]);
    await completed({ job: two, signal, log });
  });

  it('refuses a configured working directory outside the work root', async () => {
    const outside = join(root, 'precious');
    await mkdir(outside);
    const job = jobRecord('jid0000000003', {
      configuration: { ...jobRecord('x').configuration, working_dir: `${settings.workRoot}/../precious` },
    });
    await expect(createCompletedStep({ settings })({ job, signal, log })).rejects.toThrow(/is not inside/);
    expect((await stat(outside)).isDirectory()).toBe(true);
  });
});
