import type { Logger } from 'pino';
import type { JobLifecycle } from '../../../machines/index.js';
import type { Op, ZkClient } from '../../zk/index.js';
import type { GroupCommit } from '../../zk/group-commit.js';

/** What every queue operation works with. */
export interface QueueContext {
  zk: ZkClient;
  log: Logger;
  /** The job lifecycle the queue's jobs follow: its states, folders, steps and machine. */
  lifecycle: JobLifecycle;
  /** The clock `last_modified` is taken from (tests may fix it). */
  now(): Date;
  /** Job transitions go through it when set (the engine): many jobs' transitions in one multi. */
  commits?: GroupCommit;
}

/**
 * Commits `ops` as one multi: with the other writes of this turn through the group commit when
 * the context has one (the engine), on its own otherwise. Rejects as `zk.multi(ops)` would.
 */
export async function commitOps(ctx: QueueContext, ops: Op[]): Promise<void> {
  if (ctx.commits) await ctx.commits.commit(ops);
  else await ctx.zk.multi(ops);
}
