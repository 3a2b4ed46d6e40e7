import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram, invokedCommand, SERVE_SUMMARY } from '../../../src/cli/program.js';
import { registerServe } from '../../../src/cli/commands/serve.js';
import type { CliContext } from '../../../src/cli/context.js';

const options = {
  version: '0.0.0',
  loadConfig: () => Promise.reject(new Error('no configuration for help')),
};

describe('the command line registers serve in full only when it runs', () => {
  it('names the command a line runs, past the global options and their values', async () => {
    const program = await buildProgram([], options);
    expect(invokedCommand(program, ['serve', '--http-port', '0'])).toBe('serve');
    expect(invokedCommand(program, ['--zk', 'serve', 'jobs'])).toBe('jobs');
    expect(invokedCommand(program, ['--config', 'x.yaml', '--zk=h:1', 'serve'])).toBe('serve');
    expect(invokedCommand(program, ['help', 'serve'])).toBe('serve');
    expect(invokedCommand(program, ['--help'])).toBeUndefined();
    expect(invokedCommand(program, ['help'])).toBeUndefined();
    expect(invokedCommand(program, ['--', 'serve'])).toBeUndefined();
  });

  it("lists serve with serve.ts's own description, and registers its options when it runs", async () => {
    const real = new Command('mrtq');
    registerServe(real, {} as CliContext);
    const serve = real.commands.find((c) => c.name() === 'serve')!;
    expect(SERVE_SUMMARY).toBe(serve.description());

    const listed = await buildProgram(['--help'], options);
    expect(listed.commands.find((c) => c.name() === 'serve')?.description()).toBe(SERVE_SUMMARY);
    const running = await buildProgram(['serve', '--help'], options);
    const full = running.commands.find((c) => c.name() === 'serve')!;
    expect(full.options.map((o) => o.long)).toEqual(serve.options.map((o) => o.long));
  });

  it('reads the configuration only when a command runs', async () => {
    let reads = 0;
    const program = await buildProgram(['--version'], {
      version: '1.2.3',
      loadConfig: () => {
        reads++;
        return Promise.reject(new Error('unreadable'));
      },
    });
    program.exitOverride().configureOutput({ writeOut: () => undefined });
    await expect(program.parseAsync(['node', 'mrtq', '--version'])).rejects.toMatchObject({
      code: 'commander.version',
    });
    expect(reads).toBe(0);
    const withCommand = await buildProgram(['jobs'], {
      version: '1.2.3',
      loadConfig: () => {
        reads++;
        return Promise.reject(new Error('unreadable'));
      },
    });
    await expect(withCommand.parseAsync(['node', 'mrtq', 'jobs'])).rejects.toThrow('unreadable');
    expect(reads).toBe(1);
  });
});
