/**
 * The ZooKeeper port: the only module that talks to node-zookeeper-client (DESIGN.md §5, §6).
 */
export { connectZk, createZk, ensureChroot, whenConnected } from './connect.js';
export { retryWhileUnavailable, type RetryOptions } from './retry.js';
export { ZkClient, type NodeData } from './client.js';
export { ChildNames, NAMES_PER_TURN } from './child-names.js';
export {
  ZkError,
  ZkTransactionError,
  isZkError,
  type OpOutcome,
  type ZkErrorCode,
  type ZkErrorName,
} from './errors.js';
export { basename, joinPath, parentPath, parseConnectString, pathProblem, validatePath } from './paths.js';
export { MAX_REQUEST_BYTES } from './limits.js';
export type {
  CreateMode,
  Op,
  OpResult,
  SessionEvent,
  SessionState,
  WatchCallback,
  WatchEventType,
  ZkOptions,
  ZkStat,
} from './types.js';
