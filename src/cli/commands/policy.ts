import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import type { z } from 'zod';
import type { CliContext } from '../context.js';
import { CliError, ExitCode } from '../exit-codes.js';
import { withQueue } from '../lazy.js';

const KINDS = ['retry', 'shares', 'alerts'] as const;
type Kind = (typeof KINDS)[number];

/** The node and schema of a policy, loaded when a command runs. */
async function policyOf(kind: Kind) {
  const store = await import('../../queue/policies/store.js');
  const { retryPolicySchema } = await import('../../engine/retry/policy.js');
  const { sharesPolicySchema } = await import('../../engine/shares/policy.js');
  const { alertsPolicySchema } = await import('../../alerts/policy.js');
  const schemas: Record<Kind, z.ZodType<object>> = {
    retry: retryPolicySchema,
    shares: sharesPolicySchema,
    alerts: alertsPolicySchema,
  };
  const paths: Record<Kind, string> = {
    retry: store.RETRY_POLICY,
    shares: store.SHARES_POLICY,
    alerts: store.ALERTS_POLICY,
  };
  return { store, path: paths[kind], schema: schemas[kind], fallback: {} };
}

function kindOf(value: string): Kind {
  if (!(KINDS as readonly string[]).includes(value))
    throw new CliError(`unknown policy "${value}" (policies: ${KINDS.join(', ')})`, ExitCode.usage);
  return value as Kind;
}

function parseJson(text: string, where: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw new CliError(`${where} is not JSON: ${(err as Error).message}`, ExitCode.usage);
  }
}

/**
 * `mrtq retries`: the jobs waiting to retry. `mrtq policy <retry|shares|alerts>`: print a run-time policy, or replace it (`--set JSON`, `--file F`),
 * checked by its schema first; `mrtq share <key> --weight N --cap N`: one collection's share.
 * Every engine watches the policies and applies a change at once (docs/engine.md).
 */
export function registerPolicy(program: Command, ctx: CliContext): void {
  program
    .command('retries')
    .description(
      'list the jobs waiting to retry after a transient failure: when, why, how many attempts so far',
    )
    .option('--json', 'print them as JSON')
    .action(async (flags: { json?: boolean }) => {
      const { listRetryWaits } = await import('../../views/retries/retries.js');
      const waits = await withQueue(ctx, (q) => listRetryWaits(q));
      if (flags.json) return void ctx.stdout.write(`${JSON.stringify(waits, null, 2)}\n`);
      if (waits.length === 0) return void ctx.stdout.write('no job waits to retry\n');
      for (const w of waits)
        ctx.stdout.write(
          `${w.jobId} ${w.state} next attempt ${w.nextAttempt} (${w.failures} of ${w.limit}, ${w.class} ${w.code}): ${w.message}\n`,
        );
    });
  program
    .command('policy')
    .description('print or replace a run-time policy every engine applies: retry, shares, alerts')
    .argument('<policy>', KINDS.join(' or '))
    .option('--set <json>', 'replace it with this JSON')
    .option('--file <file>', 'replace it with the JSON in this file')
    .action(async (name: string, flags: { set?: string; file?: string }) => {
      const kind = kindOf(name);
      const { store, path, schema, fallback } = await policyOf(kind);
      const text = flags.set ?? (flags.file ? await readFile(flags.file, 'utf8') : undefined);
      const { audited } = await import('../audit.js');
      const what = { action: `set ${kind} policy`, item: `policy:${kind}` };
      const stored = await withQueue(ctx, (q) =>
        text === undefined
          ? store.readPolicy(q, path, schema, fallback)
          : audited(ctx.config, q, what, () =>
              store.writePolicy(q, path, schema, parseJson(text, flags.set ? '--set' : flags.file!)),
            ),
      );
      ctx.stdout.write(`${JSON.stringify(stored.value, null, 2)}\n`);
    });
  program
    .command('share')
    .description(
      "change one key's fair share (a collection's, by default): its weight, its cap of jobs at work",
    )
    .argument('<key>', 'the collection (or the key the shares policy names)')
    .option('--weight <n>', 'its weight (default 1)', Number)
    .option('--cap <n>', 'most of its jobs at work at once ("none": no cap of its own)')
    .action(async (key: string, flags: { weight?: number; cap?: string }) => {
      if (flags.weight === undefined && flags.cap === undefined)
        throw new CliError('give --weight, --cap or both', ExitCode.usage);
      const cap = flags.cap === undefined ? undefined : flags.cap === 'none' ? null : Number(flags.cap);
      const [{ changeShare }, { audited }] = await Promise.all([
        import('../../admin/shares.js'),
        import('../audit.js'),
      ]);
      const what = { action: 'change share', item: `share:${key}`, detail: { weight: flags.weight, cap } };
      const stored = await withQueue(ctx, (q) =>
        audited(ctx.config, q, what, () => changeShare(q, key, { weight: flags.weight, cap })),
      );
      ctx.stdout.write(`${JSON.stringify(stored.value, null, 2)}\n`);
    });
}
