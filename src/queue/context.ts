import type { Logger } from 'pino';
import type { ZkClient } from '../zk/index.js';

/** What every queue operation works with. */
export interface QueueContext {
  zk: ZkClient;
  log: Logger;
  /** The clock `last_modified` is taken from (tests may fix it). */
  now(): Date;
}
