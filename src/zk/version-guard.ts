import { ZkError } from './errors.js';
import {
  createLibClient,
  libraryFixesOfReading,
  libraryKnowsCode,
  libraryWireProblems,
  queuedOps,
  type LibClient,
  type LibTransaction,
} from './library.js';

const PATCHES = 'patches/node-zookeeper-client+1.1.3';
const APPLY = '(npm install runs patch-package; see src/zk/README.md, "Library defects handled")';

/**
 * Throws unless a transaction built by `makeTransaction` keeps an expected version of 0.
 *
 * node-zookeeper-client 1.1.3 does `version = version || -1` inside transactions (upstream #67),
 * which turns compare-and-set on a fresh node (version 0) into "any version" without a word.
 * Patch 001 fixes it; this guard makes a missing patch loud.
 */
export function assertVersionZeroHonoured(makeTransaction: () => Pick<LibTransaction, 'check'>): void {
  const transaction = makeTransaction().check('/version-guard', 0);
  const version = queuedOps(transaction)[0]?.version;
  if (version !== 0) {
    throw new ZkError('SYSTEM_ERROR', {
      message:
        `node-zookeeper-client turns an expected version of 0 into ${String(version)} inside transactions ` +
        `(upstream #67): compare-and-set would be silently off. Apply ${PATCHES}+001+transaction-version-zero.patch ` +
        APPLY,
    });
  }
}

/** Server codes newer than 1.1.3 (patch 002); without them one such reply crashes the process. */
const NEWER_SERVER_CODES = [-12, -13, -14, -118, -119, -120, -121, -122, -123, -124, -125, -127];

/** The fixes after 001, each with a probe of the installed library: the patch files missing. */
function missingFixes(probe: LibClient): string[] {
  const reading = libraryFixesOfReading(probe);
  const fixes: Array<[patch: string, applied: boolean]> = [
    ['002+server-error-codes', NEWER_SERVER_CODES.every(libraryKnowsCode)],
    ['003+stale-partial-reply', reading.staleReply],
    ['004+reply-reassembly', reading.replyChunks],
  ];
  return fixes.filter(([, applied]) => !applied).map(([patch]) => `${PATCHES}+${patch}.patch`);
}

let checked = false;

/**
 * Checks the installed library once per process: every fix patch applied (001 through
 * {@link assertVersionZeroHonoured}, the others through a probe each), and the in-tree wire code
 * in place (`wire/install.ts`). Throws a SYSTEM_ERROR naming what is missing.
 */
export function guardInstalledLibrary(): void {
  if (checked) return;
  // Never connected: building a transaction only records ops, and the probes send nothing.
  const probe = createLibClient('127.0.0.1:1', {
    sessionTimeoutMs: 1000,
    spinDelayMs: 1000,
    auth: undefined,
  });
  assertVersionZeroHonoured(() => probe.transaction());
  const missing = missingFixes(probe);
  if (missing.length > 0) {
    throw new ZkError('SYSTEM_ERROR', {
      message: `node-zookeeper-client is missing fixes: apply ${missing.join(', ')} ${APPLY}.`,
    });
  }
  const wire = libraryWireProblems();
  if (wire.length > 0) {
    throw new ZkError('SYSTEM_ERROR', {
      message:
        `node-zookeeper-client does not run the in-tree wire code (src/zk/wire): ${wire.join(', ')} ` +
        'replaced since src/zk/library.ts installed it.',
    });
  }
  checked = true;
}
