import { JAVA_CHILD_LIST_BYTES } from '../config/child-list-limit.js';
import { childListSizes, describeChildList } from '../queue/tree/child-lists.js';
import type { QueueContext } from '../queue/tree/context.js';
import { normaliseSessionId } from '../zk/session-id.js';
import type { CheckSettings, DoctorNote, DoctorProblem } from './problems.js';
import { createTreeReader } from '../queue/scan/reader.js';
import { scanSkeleton, streamJobs, type QueueScan } from '../queue/scan/snapshot.js';
import { createJobCheckStream, type CheckResult } from './stream.js';

export type { DoctorCode, DoctorNote, DoctorNoteCode, DoctorProblem } from './problems.js';

/** Default age after which an id node without data counts as an orphan (not a creation in progress). */
export const DEFAULT_ORPHAN_GRACE_MS = 10 * 60_000;

export interface DoctorOptions {
  /** Younger empty id nodes may be creations in progress and are not reported. Default 10 min. */
  orphanGraceMs?: number;
  /**
   * Sessions known to be alive (hex ids, `0x` optional). When given, a lock owned by any other
   * session is reported as stale. This session is always counted as alive.
   */
  liveSessions?: ReadonlySet<string>;
  /** ZooKeeper requests in flight at once. Default 256. */
  concurrency?: number;
  /**
   * Read the tree a second time and report only problems seen both times (default true). The
   * reads of one pass are not one snapshot: an item that moves between two of them can look
   * inconsistent once, never twice the same way.
   */
  confirm?: boolean;
  /**
   * The longest child list the tree's other readers accept (MRTQ_PEER_CHILD_LIST_BYTES; default
   * the Java client's 0xfffff): a folder near or above it is a note.
   */
  peerChildListBytes?: number;
}

/** What `doctor` found: `ok` when there are no problems (notes do not count). */
export interface DoctorReport {
  ok: boolean;
  problems: DoctorProblem[];
  /** What is as it should be but worth telling (a batch left pending for Merritt's ingest). */
  notes: DoctorNote[];
  checked: { jobs: number; batches: number; refs: number };
}

/** Runs every check over a scan. Pure: the scan and settings decide everything. */
export function checkQueue(scan: QueueScan, settings: CheckSettings): DoctorProblem[] {
  const checks = createJobCheckStream(scan, settings);
  checks.add(scan.jobs.values());
  return checks.finish().problems;
}

const keyOf = (p: DoctorProblem): string => `${p.code} ${p.item} ${p.path}`;
const byPath = (a: DoctorProblem, b: DoctorProblem): number =>
  a.path < b.path ? -1 : a.path > b.path ? 1 : a.code < b.code ? -1 : a.code > b.code ? 1 : 0;

function settingsOf(ctx: QueueContext, options: DoctorOptions): CheckSettings {
  const live = options.liveSessions;
  return {
    now: ctx.now().getTime(),
    orphanGraceMs: options.orphanGraceMs ?? DEFAULT_ORPHAN_GRACE_MS,
    liveSessions: live ? new Set([...live, ctx.zk.sessionId].map(normaliseSessionId)) : undefined,
    lifecycle: ctx.lifecycle,
  };
}

/**
 * One pass over the tree: everything but the jobs' data first, then the jobs a window at a time,
 * each window checked and dropped, so memory follows the refs, not the jobs' nodes.
 */
async function checkPass(ctx: QueueContext, options: DoctorOptions): Promise<CheckResult> {
  const read = createTreeReader(ctx.zk, options.concurrency);
  const { skeleton, jobIds } = await scanSkeleton(read);
  const checks = createJobCheckStream(skeleton, settingsOf(ctx, options));
  await streamJobs(
    read,
    jobIds,
    (job) => checks.check(job),
    (verdicts) => checks.record(verdicts),
  );
  return checks.finish();
}

/** A pass, and with `confirm` a second one whose problems count only when the first saw them too. */
async function confirmedPass(ctx: QueueContext, options: DoctorOptions): Promise<CheckResult> {
  const first = await checkPass(ctx, options);
  if (first.problems.length === 0 || !(options.confirm ?? true)) return first;
  // Only the keys of the first pass live on while the second reads the tree.
  return secondPass(ctx, options, new Set(first.problems.map(keyOf)));
}

async function secondPass(
  ctx: QueueContext,
  options: DoctorOptions,
  seen: ReadonlySet<string>,
): Promise<CheckResult> {
  const second = await checkPass(ctx, options);
  return { ...second, problems: second.problems.filter((p) => seen.has(keyOf(p))) };
}

/** Folders whose child list nears or passes what Merritt's Java readers accept (docs/deploy.md). */
async function childListNotes(ctx: QueueContext, limitBytes: number): Promise<DoctorNote[]> {
  return (await childListSizes(ctx, limitBytes))
    .filter((size) => size.level !== 'ok')
    .map((size) => ({
      code: size.level === 'over' ? 'CHILD_LIST_OVER_LIMIT' : 'CHILD_LIST_NEAR_LIMIT',
      item: size.path,
      path: size.path,
      message: describeChildList(size, limitBytes),
    }));
}

/**
 * Checks the whole queue tree against DESIGN.md §2 and §4 and reports every violation with a
 * stable code, the item, the node and an actionable message. Tolerant of trees written by other
 * tools (mrt-zk): unreadable data is reported, never thrown; only ZooKeeper failures reject.
 *
 * Stale locks: ZooKeeper's client protocol cannot list live sessions (`cons` and `dump` are
 * four-letter words for the server's admin port, and see only one server of an ensemble). So a
 * lock is stale when its node is persistent (ephemeralOwner 0, written by a tool that forgot
 * ephemeral), and, only when `options.liveSessions` is given, when its owner is not in that set.
 * An ephemeral lock of a crashed process disappears by itself when its session expires.
 */
export async function doctor(ctx: QueueContext, options: DoctorOptions = {}): Promise<DoctorReport> {
  const started = Date.now();
  const { problems, notes: treeNotes, checked } = await confirmedPass(ctx, options);
  problems.sort(byPath);
  const limit = options.peerChildListBytes ?? JAVA_CHILD_LIST_BYTES;
  const notes = [...treeNotes, ...(await childListNotes(ctx, limit))];
  const summary = { ...checked, problems: problems.length, notes: notes.length, ms: Date.now() - started };
  ctx.log.info(summary, 'doctor finished');
  return { ok: problems.length === 0, problems, notes, checked };
}
