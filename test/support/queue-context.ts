import { pino } from 'pino';
import { merrittJobLifecycle } from '../../machines/index.js';
import type { QueueContext } from '../../src/queue/tree/context.js';
import type { ZkClient } from '../../src/zk/index.js';

/** A queue context over `zk` with a silent logger and, optionally, a fixed clock. */
export function queueContext(zk: ZkClient, now: () => Date = () => new Date()): QueueContext {
  return { zk, lifecycle: merrittJobLifecycle, log: pino({ level: 'silent' }), now };
}
