import { describe, expect, it } from 'vitest';
import { SUBMISSION_KINDS } from '../../../src/steps/batch/submission-kinds.js';
import { runCli } from '../../support/run-cli.js';

describe('mrtq submit --type (issue 21, item 7)', () => {
  it('an unknown type is a usage error (exit 2), one line naming the allowed types, before any ZooKeeper', async () => {
    const result = await runCli([
      'submit',
      'sim:1',
      '--profile',
      'demo',
      '--type',
      'zip',
      '--zk',
      '127.0.0.1:1',
    ]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`mrtq: unknown --type "zip" (allowed: ${SUBMISSION_KINDS.join(', ')})\n`);
  });

  it('the help names the allowed types', async () => {
    const help = await runCli(['submit', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout.replace(/\s+/g, ' ')).toContain(SUBMISSION_KINDS.join(', '));
  });
});
