import { merrittJobLifecycle } from '../../../machines/index.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { jobPath, jobStateFolder, parseRefName } from '../../../src/queue/tree/paths.js';
import type { EngineProcess } from '../engine-process.js';
import { logLines, sessionEvents } from './zk-ensemble.js';

/**
 * For a failure message: an engine's session events and its log lines (transitions left out)
 * since `since`, and the work it has in hand now (from its `/metrics`).
 */
export async function engineDigest(engine: EngineProcess, since: number): Promise<string> {
  const logs = logLines(engine);
  const url = logs.find((l) => typeof l.http === 'string')?.http as string | undefined;
  const metrics = url
    ? await fetch(`${url}/metrics`)
        .then((r) => r.text())
        .catch((err: unknown) => `metrics: ${String(err)}`)
    : 'no http url';
  const inHand = metrics
    .split('\n')
    .filter((l) => /^mrtq_(engine_in_flight|zk_session)/.test(l) && !l.endsWith(' 0'))
    .join('; ');
  const lines = logs
    .filter((l) => Number(l.time) > since && (Number(l.level) >= 40 || l.msg !== 'transition'))
    .slice(-25)
    .map(
      (l) =>
        `    +${Number(l.time) - since} ms ${String(l.msg)} ${typeof l.state === 'string' ? l.state : ''}`,
    );
  const sessions = sessionEvents(engine)
    .filter((e) => e.time > since)
    .map((e) => `${e.state}@+${e.time - since}`);
  return `  engine ${engine.pid}: sessions ${sessions.join(' ') || 'none'}; in hand: ${inHand || 'nothing'}\n${lines.join('\n')}`;
}

/** For a failure message: the jobs in each state folder an engine serves, counted by lock owner. */
export async function lockDigest(ctx: QueueContext): Promise<string> {
  const lines: string[] = [];
  for (const state of merrittJobLifecycle.servableStates) {
    let refs: string[];
    try {
      refs = await ctx.zk.getChildren(jobStateFolder(state));
    } catch (err) {
      lines.push(`  ${state}: ${String(err)}`);
      continue;
    }
    const owners = await Promise.all(
      refs.map(async (ref) => {
        const jid = parseRefName(ref)?.jid ?? ref;
        const stat = await ctx.zk.exists(`${jobPath(jid)}/lock`).catch(() => undefined);
        return stat?.ephemeralOwner ?? 'free';
      }),
    );
    const byOwner = new Map<string, number>();
    for (const o of owners) byOwner.set(o, (byOwner.get(o) ?? 0) + 1);
    lines.push(`  ${state}: ${refs.length} (${[...byOwner].map(([o, n]) => `${o}×${n}`).join(' ')})`);
  }
  return lines.join('\n');
}
