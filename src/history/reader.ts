import type { AuditLog } from '../audit/audit-log.js';
import type { AuditEntry } from '../audit/entry.js';
import { readJournal } from '../journal/reader.js';
import { HISTORY_KIND, type HistoryEntry } from './entry.js';

/** One event of an item's timeline: a step the engine ran, or an operator's action. */
export type TimelineEvent =
  | ({ type: 'step' } & HistoryEntry & {
        /** For a transition: how long the item had been in `state` (since the transition before). */
        inStateMs?: number;
      })
  | ({ type: 'operator' } & AuditEntry);

export interface ItemHistory {
  item: string;
  events: TimelineEvent[];
  /** More events than the limit: the oldest were left out. */
  truncated: boolean;
  /** Lines of the journals that could not be read (cut by a crash). */
  unreadable: number;
}

/** At most this many events of one item are read (a job requeued a thousand times is still shown). */
const MAX_EVENTS = 5000;

/**
 * Reads an item's history from every engine's journal and the audit log, merged in time order
 * (see readJournal): kept after the job is gone from ZooKeeper, for the journals' retention.
 */
export class HistoryReader {
  constructor(
    private readonly dirs: readonly string[],
    private readonly audit?: AuditLog,
  ) {}

  async of(item: string, options: { since?: Date; limit?: number } = {}): Promise<ItemHistory> {
    const limit = options.limit ?? MAX_EVENTS;
    const [steps, actions] = await Promise.all([
      readJournal<HistoryEntry>(this.dirs, HISTORY_KIND, {
        since: options.since,
        contains: `"${item}"`,
        where: (entry) => entry.item === item,
        limit,
      }),
      this.audit?.query({ item, since: options.since, limit }),
    ]);
    const events: TimelineEvent[] = [
      ...withTimeInState(steps.entries),
      ...(actions?.entries ?? []).map((entry): TimelineEvent => ({ type: 'operator', ...entry })),
    ].sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0));
    const truncated = steps.truncated || (actions?.truncated ?? false) || events.length > limit;
    return {
      item,
      events: events.length > limit ? events.slice(events.length - limit) : events,
      truncated,
      unreadable: steps.unreadable + (actions?.unreadable ?? 0),
    };
  }
}

/** The steps, each transition with the time its item spent in the state it left. */
function withTimeInState(entries: readonly HistoryEntry[]): TimelineEvent[] {
  let enteredAt: number | undefined;
  return entries.map((entry) => {
    if (entry.outcome !== 'committed') return { type: 'step', ...entry };
    const at = Date.parse(entry.at);
    const inState = enteredAt === undefined || entry.to === entry.state ? undefined : at - enteredAt;
    if (entry.to !== entry.state) enteredAt = at;
    return { type: 'step', ...entry, ...(inState !== undefined ? { inStateMs: inState } : {}) };
  });
}
