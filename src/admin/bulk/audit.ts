import type { AuditRecord } from '../../audit/entry.js';
import type { BulkItem } from './outcome.js';

/** The audit line of one job a real bulk run touched (the request's own line groups them by `request`). */
export function bulkAuditRecord(
  item: BulkItem,
  base: Pick<AuditRecord, 'actor' | 'action' | 'reason' | 'request'>,
): AuditRecord {
  return {
    ...base,
    item: item.jid,
    ...(item.from !== undefined ? { before: item.from } : {}),
    ...(item.outcome === 'refused'
      ? { after: item.from, outcome: 'refused' as const, error: `${item.error}: ${item.message}` }
      : { after: item.to, outcome: 'done' as const }),
    ...(item.bid ? { detail: { batch: item.bid } } : {}),
  };
}
