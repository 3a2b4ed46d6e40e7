import type { Command } from 'commander';
import { startInspector, type RunningInspector } from '../../inspect/index.js';
import { createLogger } from '../../logger.js';
import { connectZk } from '../../zk/index.js';
import { startEmbedded } from '../../zk-server/embedded.js';
import type { CliContext } from '../context.js';

/**
 * `mrtq serve`: the long-running service. Today it brings up ZooKeeper (ZK_CONNECT, --zk, or the
 * embedded server under the data dir), holds one session and logs its state until SIGINT/SIGTERM.
 * The consumers that run the queue, and so the machine actors `--inspect` shows, are wired in
 * here by issue #5; until then the inspector relay starts but has no actors to show.
 */
export function registerServe(program: Command, ctx: CliContext): void {
  program
    .command('serve')
    .description('run the service (starts an embedded ZooKeeper when none is configured)')
    .option('--inspect', "start the Stately inspector relay and attach it to the service's machine actors")
    .option('--inspect-port <port>', 'port of the inspector relay', (v) => Number(v), 8080)
    .action(async (opts: { inspect?: boolean; inspectPort: number }) => {
      const log = createLogger(ctx.config.logLevel);
      let inspector: RunningInspector | undefined;
      if (opts.inspect) {
        inspector = await startInspector({ port: opts.inspectPort });
        log.info({ url: inspector.url }, 'Stately inspector relay (open in a browser on this machine)');
      }
      let connectString = ctx.zkFlag() ?? ctx.config.zkConnect;
      if (!connectString) {
        const embedded = await startEmbedded(ctx.config);
        log.info(
          { connectString: embedded.connectString, source: embedded.source, reused: embedded.reused },
          'embedded ZooKeeper',
        );
        connectString = embedded.connectString;
      }
      const zk = await connectZk({
        connectString,
        sessionTimeoutMs: ctx.config.zkSessionTimeoutMs,
        logger: log,
      });
      const session = zk.session$.subscribe((event) => log.info(event, 'zookeeper session'));
      log.info({ connectString, dataDir: ctx.config.dataDir }, 'service running; stop with Ctrl-C');
      const signal = await new Promise<NodeJS.Signals>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      log.info({ signal }, 'shutting down');
      session.unsubscribe();
      await zk.close();
      await inspector?.stop();
    });
}
