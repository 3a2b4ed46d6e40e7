import { Command } from 'commander';
import type { Config } from '../config/config.js';
import { registerAdmin } from './commands/admin.js';
import { registerBench } from './commands/bench.js';
import { registerBulk } from './commands/bulk.js';
import { registerRecords } from './commands/records.js';
import { registerCleanup } from './commands/cleanup.js';
import { registerCredentials } from './commands/credentials.js';
import { registerDoctor } from './commands/doctor.js';
import { registerListing } from './commands/listing.js';
import { registerMigrate } from './commands/migrate.js';
import { registerSubmit } from './commands/submit.js';
import { registerTree } from './commands/tree.js';
import { registerPolicy } from './commands/policy.js';
import { registerAlerts } from './commands/alerts.js';
import { registerWatch } from './commands/watch.js';
import { registerWindow } from './commands/window.js';
import { registerZk } from './commands/zk.js';
import type { CliContext } from './context.js';

/**
 * `serve`'s module loads the whole service (engine, HTTP API: about half a second), so it is
 * registered in full only when it runs or its help is asked for; otherwise the list of commands
 * names it with this summary (a unit test holds it to serve.ts's own description).
 */
export const SERVE_SUMMARY = 'run the engine (starts an embedded ZooKeeper when none is configured)';

export interface ProgramOptions {
  version: string;
  /** Reads the configuration; called once, when a command runs (never for --help or --version). */
  loadConfig(configFile: string | undefined): Promise<Config>;
  stdout?: NodeJS.WritableStream;
  stderr?: NodeJS.WritableStream;
}

/**
 * The command `args` (the arguments after the script) runs, or the one `help <command>` asks
 * about: the first word that is neither one of the program's options nor an option's value.
 */
export function invokedCommand(program: Command, args: readonly string[]): string | undefined {
  const words: string[] = [];
  for (let i = 0; i < args.length && words.length < 2; i++) {
    const arg = args[i]!;
    if (arg === '--') break;
    if (!arg.startsWith('-')) words.push(arg);
    else if (words.length === 0) {
      // `--zk host:2181 serve`: the value is not the command.
      const option = program.options.find((o) => o.long === arg || o.short === arg);
      if (option?.required) i++;
    }
    if (words.length === 1 && words[0] !== 'help') break;
  }
  return words[0] === 'help' ? words[1] : words[0];
}

/**
 * `mrtq` and its commands. Registering them loads only light modules (options, help texts): each
 * command imports what it works with when it runs, so `--help` and `--version` start fast.
 */
export async function buildProgram(args: readonly string[], options: ProgramOptions): Promise<Command> {
  const program = new Command('mrtq')
    .description('Merritt ingest queue on Apache ZooKeeper')
    .version(options.version, '-V, --version', 'print the version')
    .option('--config <file>', 'YAML or JSON settings, named as the environment variables (also MRTQ_CONFIG)')
    .option(
      '--zk <connect>',
      'ZooKeeper connection string (host:port[,host:port][/chroot]); default ZK_CONNECT',
    )
    .exitOverride()
    .showHelpAfterError();
  let config: Config | undefined;
  const ctx: CliContext = {
    get config(): Config {
      if (!config) throw new Error('the configuration is read when a command runs, not before');
      return config;
    },
    zkFlag: () => program.opts<{ zk?: string }>().zk,
    stdout: options.stdout ?? process.stdout,
    stderr: options.stderr ?? process.stderr,
  };
  // Every command needs the configuration; help and version do not.
  program.hook('preAction', async () => {
    config ??= await options.loadConfig(program.opts<{ config?: string }>().config);
  });
  if (invokedCommand(program, args) === 'serve') {
    const { registerServe } = await import('./commands/serve.js');
    registerServe(program, ctx);
  } else program.command('serve').description(SERVE_SUMMARY);
  registerSubmit(program, ctx);
  registerAdmin(program, ctx);
  registerBulk(program, ctx);
  registerRecords(program, ctx);
  registerListing(program, ctx);
  registerZk(program, ctx);
  registerTree(program, ctx);
  registerWatch(program, ctx);
  registerDoctor(program, ctx);
  registerCleanup(program, ctx);
  registerWindow(program, ctx);
  registerPolicy(program, ctx);
  registerAlerts(program, ctx);
  registerCredentials(program, ctx);
  registerMigrate(program, ctx);
  registerBench(program, ctx);
  return program;
}
