import { merrittJobLifecycle, type JobLifecycle } from '../../../machines/index.js';
import type { ZkClient } from '../../zk/index.js';
import {
  ACCESS,
  BATCHES,
  BATCH_UUIDS,
  COLLECTION_LOCKS,
  LOCKS,
  QUEUE_LOCKS,
  jobStateFolder,
} from './paths.js';

/** The folders every queue needs, as mrt-zk's `initNodes` creates them, with a folder per job state. */
export const queueFolders = (lifecycle: JobLifecycle): readonly string[] => [
  BATCHES,
  BATCH_UUIDS,
  ...lifecycle.states.map((state) => jobStateFolder(lifecycle.folderOf(state))),
  QUEUE_LOCKS,
  COLLECTION_LOCKS,
  `${LOCKS}/storage`,
  `${LOCKS}/inventory`,
  `${LOCKS}/localid`,
  `${ACCESS}/small`,
  `${ACCESS}/large`,
];

/** Creates the queue's folders that are missing; safe to run from every process at start. */
export async function ensureQueueTree(
  zk: ZkClient,
  lifecycle: JobLifecycle = merrittJobLifecycle,
): Promise<void> {
  await Promise.all(queueFolders(lifecycle).map((path) => zk.mkdirp(path)));
}
