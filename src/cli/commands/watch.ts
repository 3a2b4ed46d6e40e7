import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { connect } from '../lazy.js';

/** `mrtq watch`: every transition of every job and batch, live, until Ctrl-C. */
export function registerWatch(program: Command, ctx: CliContext): void {
  program
    .command('watch')
    .description('print job and batch transitions as they happen (any process), until Ctrl-C')
    .option('--json', 'one JSON object per transition: {"kind","id","from","to","at"}')
    .option('--exit-after <n>', 'stop after this many transitions (for scripts)', (v) => Number(v))
    .action(async (flags: { json?: boolean; exitAfter?: number }) => {
      const { createTransitionFeed } = await import('../../streams/transition-feed.js');
      const zk = await connect(ctx);
      let seen = 0;
      try {
        await new Promise<void>((resolve, reject) => {
          const stop = createTransitionFeed(zk).subscribe({
            ready: () => ctx.stderr.write('watching; Ctrl-C to stop\n'),
            transition: (t) => {
              ctx.stdout.write(
                flags.json
                  ? `${JSON.stringify(t)}\n`
                  : `${t.at} ${t.kind} ${t.id} ${t.from ?? '-'} -> ${t.to}\n`,
              );
              seen += 1;
              if (flags.exitAfter !== undefined && seen >= flags.exitAfter) finish();
            },
            error: (err) => {
              stop();
              reject(err instanceof Error ? err : new Error(String(err)));
            },
          });
          function finish(): void {
            stop();
            resolve();
          }
          process.once('SIGINT', finish);
          process.once('SIGTERM', finish);
        });
      } finally {
        await zk.close();
      }
    });
}
