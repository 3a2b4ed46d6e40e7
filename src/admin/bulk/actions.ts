/** The operator actions a bulk run applies, one job at a time, through the per-item functions. */
export const BULK_ACTIONS = ['requeue', 'delete', 'release', 'hold'] as const;
export type BulkAction = (typeof BULK_ACTIONS)[number];

export const isBulkAction = (name: string): name is BulkAction =>
  (BULK_ACTIONS as readonly string[]).includes(name);
