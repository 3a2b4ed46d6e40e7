import type { QueueContext } from '../queue/tree/context.js';
import type { AuditOutcome, AuditRecord } from './entry.js';
import { itemState } from './item-state.js';

/** What an action's line says whatever its outcome: who, what, why (and a request, a detail). */
export type AuditLine = Omit<AuditRecord, 'item' | 'before' | 'after' | 'outcome' | 'error'>;

/** One operator action as the API and the CLI audit it alike (see {@link auditedAction}). */
export interface AuditedAction<T> {
  queue: QueueContext;
  line: AuditLine;
  /** Writes the line (the audit log adds when and which process). */
  record(line: AuditRecord): void;
  /** The item acted on, when the action names one before it runs. */
  item?: string;
  /** The item the work made, for an action that names none (a submission). */
  created?(result: T): string | undefined;
  /** Counts and the like from the work's result, added to the line's detail. */
  detail?(result: T): Record<string, unknown>;
  /** How a failure reads in the line: refused (the caller's to mend) or an error. */
  outcomeOf(err: unknown): { outcome: AuditOutcome; error: string };
}

/**
 * Runs an operator action's work and writes its one line: the item's state read before and after
 * (the same state twice when the work failed), the job's batch in the detail, and the outcome.
 * The work's failure is rethrown after its line is written.
 */
export async function auditedAction<T>(action: AuditedAction<T>, work: () => Promise<T>): Promise<T> {
  const { queue, line, item } = action;
  const before = item ? await itemState(queue, item) : undefined;
  const write = (
    target: string | undefined,
    after: string | undefined,
    detail: Record<string, unknown>,
    outcome: Pick<AuditRecord, 'outcome' | 'error'>,
  ): void =>
    action.record({
      ...line,
      ...(target ? { item: target } : {}),
      ...(before ? { before: before.state } : {}),
      ...(after !== undefined ? { after } : {}),
      ...(Object.keys(detail).length > 0 ? { detail } : {}),
      ...outcome,
    });
  let done: T;
  try {
    done = await work();
  } catch (err) {
    const batch = before?.batch;
    write(item, before?.state, { ...line.detail, ...(batch ? { batch } : {}) }, action.outcomeOf(err));
    throw err;
  }
  const target = item ?? action.created?.(done);
  const after = target ? await itemState(queue, target) : undefined;
  const batch = (after ?? before)?.batch;
  write(
    target,
    after?.state,
    { ...line.detail, ...(batch ? { batch } : {}), ...action.detail?.(done) },
    { outcome: 'done' },
  );
  return done;
}
