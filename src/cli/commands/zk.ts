import type { Command } from 'commander';
import { readEndpoint } from '../../endpoint-file.js';
import { readEmbedded, startEmbedded, stopEmbedded } from '../../zk-server/embedded.js';
import type { CliContext } from '../context.js';

/**
 * The ZooKeeper this command line is already pointed at, if any: `--zk`, ZK_CONNECT, or the one
 * a running service recorded. `zk up` says so instead of starting a second, empty one.
 */
function configuredZooKeeper(ctx: CliContext): { connectString: string; why: string } | undefined {
  const flag = ctx.zkFlag();
  if (flag) return { connectString: flag, why: '--zk names it' };
  if (ctx.config.zkConnect) return { connectString: ctx.config.zkConnect, why: 'ZK_CONNECT names it' };
  const endpoint = readEndpoint(ctx.config.dataDir);
  if (endpoint.kind !== 'live') return undefined;
  const { pid, connectString } = endpoint.record;
  return { connectString, why: `the service running from ${ctx.config.dataDir} (pid ${pid}) uses it` };
}

/** `mrtq zk up|down|status`: the service's own local ZooKeeper. */
export function registerZk(program: Command, ctx: CliContext): void {
  const zk = program
    .command('zk')
    .description("manage the service's embedded ZooKeeper (data under the data dir)");

  zk.command('up')
    .description('start the embedded ZooKeeper (if not running) and print its connection string')
    .option('--json', 'print the record as JSON')
    .action(async (opts: { json?: boolean }) => {
      const configured = configuredZooKeeper(ctx);
      const embedded = await readEmbedded(ctx.config.dataDir);
      if (configured && configured.connectString !== embedded?.connectString) {
        ctx.stdout.write(
          opts.json
            ? JSON.stringify({ connectString: configured.connectString, reused: true }) + '\n'
            : `${configured.connectString}\n`,
        );
        ctx.stderr.write(
          `ZooKeeper at ${configured.connectString}: ${configured.why}; not starting another\n`,
        );
        return;
      }
      const record = await startEmbedded(ctx.config);
      if (opts.json) ctx.stdout.write(JSON.stringify(record) + '\n');
      else {
        ctx.stdout.write(`${record.connectString}\n`);
        const how = record.reused ? 'already running' : 'started';
        ctx.stderr.write(
          `ZooKeeper ${how} (${record.source}${record.pid ? `, pid ${record.pid}` : ''}, data in ${ctx.config.dataDir}); stop it with: mrtq zk down\n`,
        );
      }
    });

  zk.command('down')
    .description('stop the embedded ZooKeeper (its data is kept)')
    .action(async () => {
      const endpoint = readEndpoint(ctx.config.dataDir);
      const embedded = await readEmbedded(ctx.config.dataDir);
      if (
        endpoint.kind === 'live' &&
        embedded &&
        endpoint.record.connectString.startsWith(embedded.connectString)
      )
        ctx.stderr.write(
          `note: the service running from ${ctx.config.dataDir} (pid ${endpoint.record.pid}) uses this ZooKeeper; it will wait for it\n`,
        );
      const stopped = await stopEmbedded(ctx.config.dataDir);
      ctx.stderr.write(stopped ? 'ZooKeeper stopped\n' : 'no embedded ZooKeeper was running\n');
    });

  zk.command('status')
    .description(
      "print the ZooKeeper connection string (the running service's, else the embedded one's), or exit 1 when there is none",
    )
    .action(async () => {
      const endpoint = readEndpoint(ctx.config.dataDir);
      if (endpoint.kind === 'live') {
        const { connectString, pid, dashboardUrl } = endpoint.record;
        ctx.stdout.write(`${connectString}\n`);
        ctx.stderr.write(
          `service pid ${pid}${dashboardUrl ? `, dashboard ${dashboardUrl}` : ''} (${endpoint.file})\n`,
        );
        return;
      }
      const record = await readEmbedded(ctx.config.dataDir);
      if (!record) {
        ctx.stderr.write(
          `no service and no embedded ZooKeeper running in ${ctx.config.dataDir} (start it with: mrtq zk up)\n`,
        );
        process.exitCode = 1;
        return;
      }
      ctx.stdout.write(`${record.connectString}\n`);
    });
}
