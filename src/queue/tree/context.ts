import type { Logger } from 'pino';
import type { JobLifecycle } from '../../../machines/index.js';
import type { ZkClient } from '../../zk/index.js';
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
