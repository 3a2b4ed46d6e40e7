import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../support/run-cli.js';

const { version } = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', '..', '..', 'package.json'), 'utf8'),
) as { version: string };

describe('mrtq --version (issue 21, item 7)', () => {
  it("prints the package's version and exits 0, without ZooKeeper", async () => {
    for (const flag of ['--version', '-V']) {
      const result = await runCli([flag]);
      expect(result).toEqual({ code: 0, stdout: `${version}\n`, stderr: '' });
    }
  });
});
