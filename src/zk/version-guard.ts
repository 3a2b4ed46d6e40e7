import { ZkError } from './errors.js';
import { createLibClient, libraryHasMultiRead, queuedOps, type LibTransaction } from './library.js';

/**
 * Throws unless a transaction built by `makeTransaction` keeps an expected version of 0.
 *
 * node-zookeeper-client 1.1.3 does `version = version || -1` inside transactions (upstream #67),
 * which turns compare-and-set on a fresh node (version 0) into "any version" without a word.
 * patches/node-zookeeper-client+1.1.3.patch fixes it; this guard makes a missing patch loud.
 */
export function assertVersionZeroHonoured(makeTransaction: () => Pick<LibTransaction, 'check'>): void {
  const transaction = makeTransaction().check('/version-guard', 0);
  const version = queuedOps(transaction)[0]?.version;
  if (version !== 0) {
    throw new ZkError('SYSTEM_ERROR', {
      message:
        `node-zookeeper-client turns an expected version of 0 into ${String(version)} inside transactions ` +
        '(upstream #67): compare-and-set would be silently off. Apply patches/node-zookeeper-client+1.1.3.patch ' +
        '(npm install runs patch-package).',
    });
  }
}

let checked = false;

/** Runs {@link assertVersionZeroHonoured} against the installed library once per process. */
export function guardInstalledLibrary(): void {
  if (checked) return;
  // Never connected: building a transaction only records ops, nothing is sent.
  const probe = createLibClient('127.0.0.1:1', {
    sessionTimeoutMs: 1000,
    spinDelayMs: 1000,
    auth: undefined,
  });
  assertVersionZeroHonoured(() => probe.transaction());
  if (!libraryHasMultiRead()) {
    throw new ZkError('SYSTEM_ERROR', {
      message:
        'node-zookeeper-client has no multiRead: apply patches/node-zookeeper-client+1.1.3.patch ' +
        '(npm install runs patch-package).',
    });
  }
  checked = true;
}
