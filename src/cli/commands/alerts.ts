import type { Command } from 'commander';
import type { CliContext } from '../context.js';
import { CliError, ExitCode } from '../exit-codes.js';

/** The parts of `GET /alerts` this command prints. */
interface AlertsAnswer {
  evaluating: boolean;
  evaluatedAt?: string;
  error?: string;
  rules: {
    rule: string;
    enabled: boolean;
    firing: boolean;
    threshold: number;
    unit: string;
    value: number;
    since?: string;
    note?: string;
    itemCount: number;
    items: { kind: string; id: string; detail: string }[];
  }[];
}

/** The rules one per line (FIRING, ok or off), each firing rule's items under it. */
export function formatAlerts(answer: AlertsAnswer): string {
  if (!answer.evaluating)
    return 'this service does not evaluate the alert rules (started with --alerts-every 0)\n';
  const lines = [
    `evaluated ${answer.evaluatedAt ?? 'not yet'}${answer.error ? ` (last try failed: ${answer.error})` : ''}`,
  ];
  for (const r of answer.rules) {
    const state = !r.enabled ? 'off' : r.firing ? 'FIRING' : 'ok';
    const unit = r.unit === 'seconds' ? 's' : ` ${r.unit}`;
    const since = r.firing && r.since ? ` since ${r.since}` : '';
    lines.push(
      `${state.padEnd(6)} ${r.rule.padEnd(16)} value ${r.value}, threshold ${r.threshold}${unit}${since}${r.note ? ` (${r.note})` : ''}`,
    );
    for (const item of r.firing ? r.items : [])
      lines.push(`         ${item.kind} ${item.id}: ${item.detail}`);
    if (r.firing && r.itemCount > r.items.length)
      lines.push(`         … and ${r.itemCount - r.items.length} more`);
  }
  return `${lines.join('\n')}\n`;
}

/** The running service's API: `--url`, else the one the endpoint file of this data directory names. */
async function serviceUrl(ctx: CliContext, url: string | undefined): Promise<string> {
  if (url) return url.replace(/\/+$/, '');
  const { readEndpoint, reachableUrl } = await import('../../endpoint-file.js');
  const running = readEndpoint(ctx.config.dataDir);
  if (running.kind === 'live' && running.record.httpUrl) return reachableUrl(running.record.httpUrl);
  throw new CliError(
    `no running service with an HTTP API found (${running.file}); give its address with --url`,
    ExitCode.usage,
  );
}

/**
 * `mrtq alerts`: the alert rules as a running service last evaluated them (`GET /alerts`; they
 * are evaluated over time, which a one-off command cannot do). Exits 1 when one fires, so a cron
 * job can warn as Merritt's daily check of old batches does.
 */
export function registerAlerts(program: Command, ctx: CliContext): void {
  program
    .command('alerts')
    .description('show the alert rules as the running service evaluates them (exit 1 when one fires)')
    .option('--url <url>', "the service's HTTP API (default: the service running from this data directory)")
    .option('--json', 'print GET /alerts as it answers')
    .action(async (flags: { url?: string; json?: boolean }) => {
      const base = await serviceUrl(ctx, flags.url);
      let answer: AlertsAnswer;
      try {
        const res = await fetch(`${base}/alerts`);
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        answer = (await res.json()) as AlertsAnswer;
      } catch (err) {
        throw new CliError(`${base}/alerts: ${(err as Error).message}`, ExitCode.unavailable, { cause: err });
      }
      ctx.stdout.write(flags.json ? `${JSON.stringify(answer, null, 2)}\n` : formatAlerts(answer));
      if (answer.rules.some((r) => r.firing)) process.exitCode = ExitCode.problems;
    });
}
