import type { Subscription } from 'rxjs';
import { REQUIRED_JOB_NODES } from '../queue/jobs/load.js';
import { jobChild } from '../queue/tree/paths.js';
import { retryPath } from '../queue/jobs/retry-record.js';
import { isZkError, type WatchCallback, type ZkClient } from '../zk/index.js';

/**
 * The nodes a job needs, watched while it waits where its step left it (provisioning, short of
 * space). Such a job is looked at again only when its wait's limit falls due or at the next
 * re-evaluation (every 30 s); a node deleted meanwhile went unseen until then, and the
 * incomplete-job limit only started counting from that look (issue 32). With one watch on each of
 * `status`, `bid` and `configuration`, a node deleted makes `lost(jid, state)` at once, so the job
 * is looked at, found incomplete, and failed when the limit says.
 *
 * Watches are armed once per job, node and session and kept while the job waits: `bid` and
 * `configuration` never change, and `status` is read again when a look writes it (one request;
 * a job found in another state is no longer watched).
 * A job taken again (`taken`) is no longer watched; a watch that fires then is not re-armed.
 * A job waiting for its step's next attempt is also watched through its `retry` node, whose
 * change (an operator's "retry now", from any process) makes it looked at at once.
 */
export class WaitingJobNodes {
  /** Jobs waiting, with the state they wait in. */
  private readonly waiting = new Map<string, string>();
  /** `jid/node` whose watch is armed in the current session and has not fired. */
  private readonly armed = new Set<string>();
  private sessionId: string;
  private readonly session: Subscription;

  constructor(
    private readonly zk: ZkClient,
    private readonly lost: (jid: string, state: string) => void,
  ) {
    this.sessionId = zk.sessionId;
    // A new session's watches are new: those of the old one never fire.
    this.session = zk.session$.subscribe((event) => {
      if (event.state !== 'connected' || event.sessionId === this.sessionId) return;
      this.sessionId = event.sessionId;
      this.armed.clear();
      for (const jid of this.waiting.keys()) this.arm(jid);
    });
  }

  /** `jid` stays in `state`, waiting: its nodes are watched until it is taken again. */
  watch(jid: string, state: string): void {
    this.waiting.set(jid, state);
    this.arm(jid);
  }

  /** `jid` is worked on (or gone): it is no longer watched. */
  taken(jid: string): void {
    this.waiting.delete(jid);
  }

  /** Jobs watched now. */
  get size(): number {
    return this.waiting.size;
  }

  stop(): void {
    this.session.unsubscribe();
    this.waiting.clear();
  }

  private arm(jid: string): void {
    for (const node of REQUIRED_JOB_NODES) this.armNode(jid, node);
    this.armRetry(jid);
  }

  /**
   * The job's retry record (`/jobs/JID/retry`): an operator's "retry now" (another process's)
   * writes it, and the job is looked at again at once instead of at its next attempt time.
   */
  private armRetry(jid: string): void {
    const key = `${jid}/retry`;
    if (this.armed.has(key)) return;
    this.armed.add(key);
    this.zk
      .exists(retryPath(jid), () => {
        this.armed.delete(key);
        const state = this.waiting.get(jid);
        if (state === undefined) return;
        this.waiting.delete(jid);
        this.lost(jid, state);
      })
      .catch(() => this.armed.delete(key));
  }

  private armNode(jid: string, node: (typeof REQUIRED_JOB_NODES)[number]): void {
    const key = `${jid}/${node}`;
    if (this.armed.has(key)) return;
    this.armed.add(key);
    // Reported once: the look it makes finds the job incomplete, and the incomplete-job clock
    // takes it from there (a job made whole and left waiting again is watched anew).
    const lose = (): void => {
      const state = this.waiting.get(jid);
      if (state === undefined) return;
      this.waiting.delete(jid);
      this.lost(jid, state);
    };
    const changed: WatchCallback = (event) => {
      this.armed.delete(key);
      if (!this.waiting.has(jid)) return;
      if (event.type === 'deleted') lose();
      else this.armNode(jid, node);
    };
    const path = jobChild(jid, node);
    // The status is read, not only watched: a job another engine moved on is no longer watched.
    const present =
      node === 'status'
        ? this.zk.getData(path, changed).then(({ data }) => {
            if (!waitsIn(data, this.waiting.get(jid))) this.waiting.delete(jid);
            return true;
          })
        : this.zk.exists(path, changed).then((stat) => stat !== undefined);
    present.then(
      (there) => {
        if (!there) lose();
      },
      (err: unknown) => {
        // Not armed: gone (getData sets no watch on a missing node), or ZooKeeper away (the
        // job's next look, by its timer, finds what it finds).
        this.armed.delete(key);
        if (isZkError(err, 'NO_NODE')) lose();
      },
    );
  }
}

/** False when `data`, a job's status, names a state other than `state` (unreadable: true, the look decides). */
function waitsIn(data: Buffer | undefined, state: string | undefined): boolean {
  if (state === undefined) return false;
  try {
    const status = (JSON.parse(data?.toString() ?? '') as { status?: unknown }).status;
    return typeof status !== 'string' || status.toLowerCase() === state;
  } catch {
    return true;
  }
}
