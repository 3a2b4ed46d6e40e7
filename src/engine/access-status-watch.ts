import type { Logger } from 'pino';
import type { Subscription } from 'rxjs';
import { accessTable, parseAccessState, type AccessQueue, type AccessState } from '../../machines/index.js';
import { ACCESS_PREFIX, accessPath } from '../queue/tree/paths.js';
import { dataWhile$, type NodeValue } from '../streams/index.js';
import type { ZkClient } from '../zk/index.js';

/**
 * The access states from which a request can become work again: the initial state and every
 * state with a path back to it in the access table (pending, processing, failed). A request in
 * any other state (completed, deleted) will never be taken again.
 */
export const ACCESS_STATES_WATCHED: ReadonlySet<AccessState> = statesLeadingBack();

function statesLeadingBack(): Set<AccessState> {
  const found = new Set<AccessState>(accessTable.flatMap((edge) => (edge.from === null ? [edge.to] : [])));
  for (let grew = true; grew;) {
    grew = false;
    for (const { from, to } of accessTable) {
      if (from === null || !found.has(to) || found.has(from)) continue;
      found.add(from);
      grew = true;
    }
  }
  return found;
}

/** A status node's state; `absent` before it is written, `unreadable` when it names none. */
type SeenStatus = AccessState | 'absent' | 'unreadable';

function statusOf(value: NodeValue): SeenStatus {
  if (!value) return 'absent';
  try {
    const json = JSON.parse(value.data?.toString('utf8') ?? '') as { status?: unknown };
    const state = typeof json.status === 'string' ? parseAccessState(json.status) : undefined;
    return state ?? 'unreadable';
  } catch {
    return 'unreadable';
  }
}

/** Watched until its status says it is finished; a status not written yet or unreadable may still be mended. */
const isWatched = (status: SeenStatus): boolean =>
  status === 'absent' || status === 'unreadable' || ACCESS_STATES_WATCHED.has(status);

/**
 * The status nodes of one access queue's requests that are not finished, each watched. A requeue
 * (Failed → Pending, mrt-admin's or `mrtq access requeue`) and a request whose status node
 * Merritt's Java library writes after its id node change a status, not the queue's children, so
 * no child watch fires for them: this watch calls `changed` instead. Finished requests carry no
 * watch (see dataWhile$) and are left out of the candidates offered to the consumer, so a queue
 * of thousands of completed requests costs one read each, once. The streams re-read after every
 * reconnection, so the watches are armed again on a new session.
 */
export class AccessStatusWatch {
  private readonly watches = new Map<string, Subscription>();
  /** Requests seen finished, while they are listed. */
  private readonly finished = new Set<string>();
  /**
   * Requests this process works on: not watched meanwhile (it commits their outcome itself, and a
   * watch armed just before its own quick commit of completed would stay on a finished request).
   */
  private readonly inHand = new Set<string>();
  private listed: readonly string[] = [];
  private present: ReadonlySet<string> = new Set();

  constructor(
    private readonly zk: ZkClient,
    private readonly queue: AccessQueue,
    private readonly changed: () => void,
    private readonly log: Logger,
  ) {}

  /** The queue's children now: new requests are watched, gone ones forgotten; answers the candidates. */
  follow(names: readonly string[]): string[] {
    this.listed = names;
    const present = (this.present = new Set(names));
    for (const [qid, watch] of this.watches) {
      if (present.has(qid)) continue;
      watch.unsubscribe();
      this.watches.delete(qid);
    }
    for (const qid of this.finished) if (!present.has(qid)) this.finished.delete(qid);
    for (const qid of names) if (qid.startsWith(ACCESS_PREFIX)) this.watchIfNeeded(qid);
    return this.candidates();
  }

  /** This process takes `qid`: its watch ends at its next change, until `settled`. */
  taking(qid: string): void {
    this.inHand.add(qid);
  }

  /** This process is done with `qid`: watched again unless finished. */
  settled(qid: string): void {
    this.inHand.delete(qid);
    if (this.present.has(qid)) this.watchIfNeeded(qid);
  }

  /** The listed requests not known to be finished, in id order. */
  candidates(): string[] {
    return this.listed.filter((qid) => !this.finished.has(qid)).sort();
  }

  stop(): void {
    for (const watch of this.watches.values()) watch.unsubscribe();
    this.watches.clear();
  }

  private watchIfNeeded(qid: string): void {
    if (!this.watches.has(qid) && !this.finished.has(qid) && !this.inHand.has(qid)) this.watch(qid);
  }

  private watch(qid: string): void {
    let last: SeenStatus | undefined;
    const path = `${accessPath(this.queue, qid)}/status`;
    const watching = (value: NodeValue): boolean => !this.inHand.has(qid) && isWatched(statusOf(value));
    const subscription = dataWhile$(this.zk, path, watching).subscribe({
      next: (value) => {
        const status = statusOf(value);
        if (!watching(value)) {
          this.watches.delete(qid);
          if (!isWatched(status)) this.finished.add(qid);
        } else if (last !== undefined && status !== last) this.changed();
        last = status;
      },
      error: (err: unknown) => {
        this.watches.delete(qid);
        this.log.warn({ queue: this.queue, accessId: qid, err }, 'access request status not watched');
      },
    });
    if (!subscription.closed) this.watches.set(qid, subscription);
  }
}
