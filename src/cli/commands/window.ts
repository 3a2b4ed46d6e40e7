import type { Command } from 'commander';
import type { StoredWindow, WindowInput } from '../../queue/windows/store.js';
import type { WindowTarget } from '../../queue/windows/window.js';
import { QUEUE_NAMES, type QueueName } from '../../queue/tree/paths.js';
import { formatDuration } from '../../config/duration.js';
import type { CliContext } from '../context.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { withQueue } from '../lazy.js';
import { table } from '../table.js';

// The store and the schedule, loaded when a command runs.
const store = () => import('../../queue/windows/store.js');
const schedule = () => import('../../queue/windows/schedule.js');

interface SetFlags {
  cron: string;
  duration: string;
  timezone: string;
  queue?: string;
  collection?: string;
  reason?: string;
  skip?: string;
  json?: boolean;
}

function targetOf(flags: SetFlags): WindowTarget {
  if ((flags.queue === undefined) === (flags.collection === undefined))
    throw new CliError(
      'name what the window holds: --queue <queue> or --collection <mnemonic>',
      ExitCode.usage,
    );
  if (flags.collection !== undefined) return { collection: flags.collection };
  if (!(QUEUE_NAMES as readonly string[]).includes(flags.queue!))
    throw new CliError(`unknown queue "${flags.queue}" (queues: ${QUEUE_NAMES.join(', ')})`, ExitCode.usage);
  return { queue: flags.queue as QueueName };
}

/** One line per window: name, target, schedule, and its state now. */
async function listing(windows: readonly StoredWindow[], now: Date): Promise<string> {
  const { windowState } = await schedule();
  const rows = windows.map(({ name, window, problem }) => {
    if (!window) return [name, '', '', '', '', `unreadable: ${problem ?? ''}`];
    const state = windowState(window, now);
    const target =
      'queue' in window.target ? `queue ${window.target.queue}` : `collection ${window.target.collection}`;
    const when = state.active
      ? `active until ${state.current!.end.toISOString()}`
      : state.current?.skipped
        ? `skipped until ${state.current.end.toISOString()}`
        : 'idle';
    const next = state.next ? `${state.next.start.toISOString()} → ${state.next.end.toISOString()}` : 'never';
    return [
      name,
      target,
      `${window.cron} (${window.timezone})`,
      formatDuration(window.durationMs),
      when,
      next,
    ];
  });
  if (rows.length === 0) return 'no maintenance windows\n';
  return table(['WINDOW', 'HOLDS', 'CRON (TIME ZONE)', 'DURATION', 'NOW', 'NEXT'], rows);
}

/** `mrtq window list|set|delete|skip`: maintenance windows (docs/engine.md). */
export function registerWindow(program: Command, ctx: CliContext): void {
  const window = program
    .command('window')
    .description(
      'maintenance windows: a schedule that holds the ingest queue or a collection (every engine applies it)',
    );
  window
    .command('list')
    .description('every window, whether it holds its target now, and its next occurrence')
    .option('--json', 'print the windows as JSON lines')
    .action(async (flags: { json?: boolean }) => {
      const { listWindows } = await store();
      const now = new Date();
      const windows = await withQueue(ctx, (queue) => listWindows(queue));
      if (flags.json) for (const w of windows) ctx.stdout.write(`${JSON.stringify(w)}\n`);
      else ctx.stdout.write(await listing(windows, now));
    });
  window
    .command('set')
    .argument('<name>', 'the window (letters, digits, ".", "_", "-")')
    .description('create or replace a window')
    .requiredOption(
      '--cron <expr>',
      'when it starts: 5 fields (minute hour day month weekday) or 6 (second first)',
    )
    .requiredOption('--duration <duration>', 'how long each occurrence lasts (e.g. 2h, 90m)')
    .requiredOption('--timezone <zone>', 'the IANA time zone the cron is read in (e.g. America/Los_Angeles)')
    .option('--queue <queue>', `hold a queue (${QUEUE_NAMES.join(', ')})`)
    .option('--collection <mnemonic>', 'hold a collection')
    .option('--reason <text>', 'why (shown in the dashboard and the log)')
    .option('--skip <instant>', 'the start (ISO) of one occurrence to skip')
    .option('--json', 'print the window as JSON')
    .action(async (name: string, flags: SetFlags) => {
      const input: WindowInput = {
        cron: flags.cron,
        duration: flags.duration,
        timezone: flags.timezone,
        target: targetOf(flags),
        ...(flags.reason !== undefined ? { reason: flags.reason } : {}),
        ...(flags.skip !== undefined ? { skip: flags.skip } : {}),
      };
      const [{ putWindow }, { audited }] = await Promise.all([store(), import('../audit.js')]);
      const what = { action: 'set window', item: `window:${name}`, detail: { ...input } };
      const written = await withQueue(ctx, (queue) =>
        audited(ctx.config, queue, what, () => putWindow(queue, name, input)),
      );
      if (flags.json) ctx.stdout.write(`${JSON.stringify(written)}\n`);
      else ctx.stdout.write(`${name} ${written.created ? 'created' : 'replaced'}\n`);
    });
  window
    .command('delete')
    .argument('<name>', 'the window')
    .description('delete a window (a hold it placed is lifted by the engines)')
    .action(async (name: string) => {
      const [{ deleteWindow }, { audited }] = await Promise.all([store(), import('../audit.js')]);
      const what = { action: 'delete window', item: `window:${name}` };
      await withQueue(ctx, (queue) => audited(ctx.config, queue, what, () => deleteWindow(queue, name)));
      ctx.stdout.write(`${name} deleted\n`);
    });
  window
    .command('skip')
    .argument('<name>', 'the window')
    .description('skip the occurrence in force now (its hold is lifted), else the next one')
    .option('--json', 'print the window as JSON')
    .action(async (name: string, flags: { json?: boolean }) => {
      const [{ skipWindow }, { audited }] = await Promise.all([store(), import('../audit.js')]);
      const what = { action: 'skip window', item: `window:${name}` };
      const skipped = await withQueue(ctx, (queue) =>
        audited(ctx.config, queue, what, () => skipWindow(queue, name)),
      );
      if (flags.json) ctx.stdout.write(`${JSON.stringify(skipped)}\n`);
      else
        ctx.stdout.write(
          `${name}: skips ${skipped.skipped.start.toISOString()} → ${skipped.skipped.end.toISOString()}\n`,
        );
    });
}
