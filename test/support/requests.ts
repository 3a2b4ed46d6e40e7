import type { ZkClient } from '../../src/zk/index.js';

/** Runs `work` and records the operation of every request `zk` sends meanwhile, in order. */
export async function requestsDuring<T>(
  zk: ZkClient,
  work: () => Promise<T>,
): Promise<{ value: T; sent: string[] }> {
  const sent: string[] = [];
  zk.observeRequests((operation) => sent.push(operation));
  try {
    return { value: await work(), sent };
  } finally {
    zk.observeRequests(undefined);
  }
}
