import { defer, map, merge, mergeMap, Observable, share, tap, type Subscription } from 'rxjs';
import { merrittJobLifecycle, type JobLifecycle } from '../../machines/index.js';
import { isQueueError } from '../queue/tree/errors.js';
import { batchChild, parseRefName } from '../queue/tree/paths.js';
import { decodeBatchStatus } from '../queue/tree/wire.js';
import { batchIds$, batchStatus$, jobWork$, type NodeValue } from './index.js';
import type { ZkClient } from '../zk/index.js';
import { BatchStatuses, JobLocations, type JobMove, type Transition } from './transition-tracker.js';

type FeedEvent = { type: 'ready' } | { type: 'transition'; transition: Transition };

/** Who listens to the feed. */
export interface FeedListener {
  /** Every job folder and every batch status has been read once: transitions from now on are seen. */
  ready(): void;
  transition(transition: Transition): void;
  error(err: unknown): void;
}

/** Transitions of jobs and batches made by any process, derived from ZooKeeper watches. */
export interface TransitionFeed {
  /** Starts listening (`ready` at once when the feed is already synced); returns the stop function. */
  subscribe(listener: FeedListener): () => void;
}

/** Job transitions: a jid leaving one `/jobs/states/<state>` folder and appearing in another. */
function jobEvents$(zk: ZkClient, lifecycle: JobLifecycle): Observable<FeedEvent> {
  return defer(() => {
    const { states } = lifecycle;
    const tracker = new JobLocations(states);
    const listings = states.map((state) =>
      jobWork$(zk, state, { floorMs: 0 }).pipe(map(({ refs }) => ({ state, refs }))),
    );
    return merge(...listings).pipe(
      mergeMap(({ state, refs }) => {
        const wasSynced = tracker.synced;
        const jids = refs.map((ref) => parseRefName(ref)?.jid).filter((jid) => jid !== undefined);
        const at = new Date().toISOString();
        const events: FeedEvent[] = tracker
          .update(state, jids)
          .map((move) => ({ type: 'transition', transition: { kind: 'job', ...move, at } }));
        if (!wasSynced && tracker.synced) events.push({ type: 'ready' });
        return events;
      }),
    );
  });
}

function statusOf(bid: string, value: NodeValue): string | undefined {
  try {
    return value ? decodeBatchStatus(batchChild(bid, 'status'), value.data).status : undefined;
  } catch (err) {
    if (isQueueError(err)) return undefined; // unreadable: no transition to report
    throw err;
  }
}

/** Batch transitions: each batch's status node, watched while the batch exists. */
function batchEvents$(zk: ZkClient): Observable<FeedEvent> {
  return new Observable<FeedEvent>((subscriber) => {
    const tracker = new BatchStatuses();
    const watches = new Map<string, Subscription>();
    const after = (wasSynced: boolean, move: JobMove | undefined, at: () => string): void => {
      if (move) subscriber.next({ type: 'transition', transition: { kind: 'batch', ...move, at: at() } });
      if (!wasSynced && tracker.synced) subscriber.next({ type: 'ready' });
    };
    const onStatus = (bid: string, value: NodeValue): void => {
      const wasSynced = tracker.synced;
      const move = tracker.read(bid, statusOf(bid, value));
      after(wasSynced, move, () => new Date(value?.stat.mtime ?? Date.now()).toISOString());
    };
    const onListing = (bids: string[]): void => {
      const wasSynced = tracker.synced;
      const { added, removed } = tracker.listed(bids, new Set(watches.keys()));
      for (const bid of removed) {
        watches.get(bid)?.unsubscribe();
        watches.delete(bid);
      }
      for (const bid of added) {
        const watch = batchStatus$(zk, bid).subscribe({
          next: (value) => onStatus(bid, value),
          error: (err: unknown) => subscriber.error(err),
        });
        watches.set(bid, watch);
      }
      after(wasSynced, undefined, () => '');
    };
    const listing = batchIds$(zk).subscribe({
      next: onListing,
      error: (err: unknown) => subscriber.error(err),
    });
    return () => {
      listing.unsubscribe();
      for (const watch of watches.values()) watch.unsubscribe();
    };
  });
}

/**
 * The transitions of every job and batch, whichever process makes them, from ZooKeeper watches:
 * job refs moving between `/jobs/states` folders and batch status nodes changing. Watches run
 * only while someone listens (shared by all listeners). Limits: watch fires coalesce, so fast
 * consecutive transitions of one item may arrive merged (A → C instead of A → B → C), and a job
 * that stays in its folder (provisioning waiting for space) shows no transition.
 */
export function createTransitionFeed(
  zk: ZkClient,
  lifecycle: JobLifecycle = merrittJobLifecycle,
): TransitionFeed {
  let readyParts = 0;
  const events$ = defer(() => {
    readyParts = 0;
    return merge(jobEvents$(zk, lifecycle), batchEvents$(zk));
  }).pipe(
    tap((event) => {
      if (event.type === 'ready') readyParts += 1;
    }),
    share(),
  );
  return {
    subscribe(listener) {
      let told = false;
      const tellReady = (): void => {
        if (told || readyParts < 2) return;
        told = true;
        listener.ready();
      };
      const subscription = events$.subscribe({
        next: (event) => {
          if (event.type === 'transition') listener.transition(event.transition);
          tellReady();
        },
        error: (err: unknown) => listener.error(err),
      });
      tellReady();
      return () => subscription.unsubscribe();
    },
  };
}
