import { sleep } from '../private-server.js';
import type { LedgerLine } from './ledger-check.js';

/** `item@version` of a ledger line: one step of one item. */
export const keyOf = (e: LedgerLine): string => `${e.item}@${e.version}`;

/** Steps of job items `pid` started and has neither committed nor discarded. */
export function inFlightSteps(ledger: readonly LedgerLine[], pid: number): Map<string, string> {
  const open = new Map<string, string>();
  for (const e of ledger) {
    if (e.pid !== pid || !e.item.startsWith('jid')) continue;
    if (e.kind === 'start') open.set(keyOf(e), e.item);
    else open.delete(keyOf(e));
  }
  return open;
}

/** Polls `ok` every 100 ms until it holds; throws naming `what` after `ms`. */
export async function waitUntil(
  what: string,
  ms: number,
  ok: () => boolean | Promise<boolean>,
): Promise<void> {
  const until = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > until) throw new Error(`${what}: not within ${ms} ms`);
    await sleep(100);
  }
}
