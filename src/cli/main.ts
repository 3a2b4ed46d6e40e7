import { readFileSync } from 'node:fs';
import { CommanderError } from 'commander';
import type { Config } from '../config/config.js';
import { packagePath } from '../package-root.js';
import { QueueError } from '../queue/tree/errors.js';
import { shutdownTelemetry } from '../telemetry/lifecycle.js';
import { CliError, ExitCode } from './exit-codes.js';
import { buildProgram } from './program.js';

/** The package's version, from its package.json (the one file that states it). */
function packageVersion(): string {
  return (JSON.parse(readFileSync(packagePath('package.json'), 'utf8')) as { version: string }).version;
}

/** The configuration, read when a command runs: `--config <file>`, else as config.ts finds it. */
async function loadCliConfig(configFile: string | undefined): Promise<Config> {
  const { loadConfig } = await import('../config/config.js');
  try {
    return loadConfig(undefined, configFile);
  } catch (err) {
    throw new CliError((err as Error).message, ExitCode.usage, { cause: err });
  }
}

/** ZooKeeper that stopped answering mid-command is "unavailable" too, said in one line. */
async function knownError(err: unknown): Promise<CliError | undefined> {
  if (err instanceof CliError) return err;
  if (err instanceof QueueError) return undefined;
  const { zkCliError } = await import('./connection.js');
  return zkCliError(err);
}

async function main(argv: string[]): Promise<number> {
  try {
    const program = await buildProgram(argv.slice(2), {
      version: packageVersion(),
      loadConfig: loadCliConfig,
    });
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : ExitCode.ok;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    const known = await knownError(err);
    if (known) {
      process.stderr.write(`mrtq: ${known.message}\n`);
      return known.exitCode;
    }
    if (err instanceof QueueError) {
      process.stderr.write(`mrtq: ${err.message}\n`);
      return exitCodeOf(err);
    }
    process.stderr.write(`mrtq: ${(err as Error).stack ?? String(err)}\n`);
    return ExitCode.failure;
  }
}

/** What a refused queue operation means to a script. */
function exitCodeOf(err: QueueError): number {
  switch (err.code) {
    case 'INVALID_TRANSITION':
      return ExitCode.refused;
    case 'LOCK_HELD':
    case 'LOCK_LOST':
    case 'CONFLICT':
      return ExitCode.busy;
    case 'NOT_FOUND':
      return ExitCode.notFound;
    case 'BAD_REQUEST':
      return ExitCode.usage;
    default:
      return ExitCode.problems;
  }
}

function flush(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write('', () => resolve()));
}

// Exit explicitly (an open socket or timer must not keep a finished command alive), but only
// after piped output has been written out.
// A reader that stops early (`mrtq tree --json | head`) is not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(ExitCode.ok);
  throw err;
});

const code = await main(process.argv);
await shutdownTelemetry();
await Promise.all([flush(process.stdout), flush(process.stderr)]);
process.exit(code);
