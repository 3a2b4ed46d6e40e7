import { merrittJobLifecycle } from '../../machines/index.js';
import { createLogger } from '../logger.js';
import type { QueueContext } from '../queue/tree/context.js';
import type { ZkClient } from '../zk/index.js';

/** A queue context for one command: logs go to stderr (stdout carries the output), warnings only. */
export function commandQueueContext(zk: ZkClient): QueueContext {
  return {
    zk,
    lifecycle: merrittJobLifecycle,
    log: createLogger({ level: 'warn', fd: 2 }),
    now: () => new Date(),
  };
}
