import type { Command } from 'commander';
import { readEmbedded, startEmbedded, stopEmbedded } from '../../zk-server/embedded.js';
import type { CliContext } from '../context.js';

/** `mrtq zk up|down|status`: the service's own local ZooKeeper. */
export function registerZk(program: Command, ctx: CliContext): void {
  const zk = program
    .command('zk')
    .description("manage the service's embedded ZooKeeper (data under the data dir)");

  zk.command('up')
    .description('start the embedded ZooKeeper (if not running) and print its connection string')
    .option('--json', 'print the record as JSON')
    .action(async (opts: { json?: boolean }) => {
      const record = await startEmbedded(ctx.config);
      if (opts.json) ctx.stdout.write(JSON.stringify(record) + '\n');
      else {
        ctx.stdout.write(`${record.connectString}\n`);
        const how = record.reused ? 'already running' : 'started';
        ctx.stderr.write(
          `ZooKeeper ${how} (${record.source}${record.pid ? `, pid ${record.pid}` : ''}); stop it with: mrtq zk down\n`,
        );
      }
    });

  zk.command('down')
    .description('stop the embedded ZooKeeper (its data is kept)')
    .action(async () => {
      const stopped = await stopEmbedded(ctx.config.dataDir);
      ctx.stderr.write(stopped ? 'ZooKeeper stopped\n' : 'no embedded ZooKeeper was running\n');
    });

  zk.command('status')
    .description('print the embedded ZooKeeper connection string, or exit 1 when it is not running')
    .action(async () => {
      const record = await readEmbedded(ctx.config.dataDir);
      if (!record) {
        ctx.stderr.write('no embedded ZooKeeper is running (start it with: mrtq zk up)\n');
        process.exitCode = 1;
        return;
      }
      ctx.stdout.write(`${record.connectString}\n`);
    });
}
