import { readFileSync } from 'node:fs';
import { Command, CommanderError } from 'commander';
import { loadConfig, type Config } from '../config.js';
import { QueueError } from '../queue/errors.js';
import { shutdownTelemetry } from '../telemetry/lifecycle.js';
import { registerBench } from './commands/bench.js';
import { registerBulk } from './commands/bulk.js';
import { registerCleanup } from './commands/cleanup.js';
import { registerDoctor } from './commands/doctor.js';
import { registerAdmin } from './commands/admin.js';
import { registerListing } from './commands/listing.js';
import { registerMigrate } from './commands/migrate.js';
import { registerServe } from './commands/serve.js';
import { registerSubmit } from './commands/submit.js';
import { registerTree } from './commands/tree.js';
import { registerWatch } from './commands/watch.js';
import { registerZk } from './commands/zk.js';
import type { CliContext } from './context.js';
import { zkCliError } from './connection.js';
import { CliError, ExitCode } from './exit-codes.js';

/** The package's version, from its package.json (the one file that states it). */
function packageVersion(): string {
  const file = new URL('../../package.json', import.meta.url);
  return (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version;
}

function buildProgram(config: Config): Command {
  const program = new Command('mrtq')
    .description('Merritt ingest queue on Apache ZooKeeper')
    .version(packageVersion(), '-V, --version', 'print the version')
    .option('--config <file>', 'YAML or JSON settings, named as the environment variables (also MRTQ_CONFIG)')
    .option(
      '--zk <connect>',
      'ZooKeeper connection string (host:port[,host:port][/chroot]); default ZK_CONNECT',
    )
    .exitOverride()
    .showHelpAfterError();
  const ctx: CliContext = {
    config,
    zkFlag: () => program.opts<{ zk?: string }>().zk,
    stdout: process.stdout,
    stderr: process.stderr,
  };
  registerServe(program, ctx);
  registerSubmit(program, ctx);
  registerAdmin(program, ctx);
  registerBulk(program, ctx);
  registerListing(program, ctx);
  registerZk(program, ctx);
  registerTree(program, ctx);
  registerWatch(program, ctx);
  registerDoctor(program, ctx);
  registerCleanup(program, ctx);
  registerMigrate(program, ctx);
  registerBench(program, ctx);
  return program;
}

/** `--config <file>` is read before the commands are parsed: every command needs the configuration. */
function configFlag(argv: string[]): string | undefined {
  const at = argv.indexOf('--config');
  if (at >= 0) return argv[at + 1];
  return argv.find((arg) => arg.startsWith('--config='))?.slice('--config='.length);
}

async function main(argv: string[]): Promise<number> {
  let config: Config;
  try {
    config = loadConfig(undefined, configFlag(argv));
  } catch (err) {
    process.stderr.write(`mrtq: ${(err as Error).message}\n`);
    return ExitCode.usage;
  }
  try {
    await buildProgram(config).parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : ExitCode.ok;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    // ZooKeeper that stopped answering mid-command is "unavailable" too, said in one line.
    const known = err instanceof CliError ? err : zkCliError(err);
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
