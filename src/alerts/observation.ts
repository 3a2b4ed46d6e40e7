import type { GoneEngine } from './engine-tracker.js';

/**
 * What one evaluation reads of the queue (src/alerts/observe.ts), and what the rules
 * (src/alerts/rules.ts) decide from: plain values, times in ms since the epoch.
 */
export interface QueueObservation {
  at: number;
  ingest: {
    /** `/locks/queue/ingest` exists (an operator's pause or a maintenance window's). */
    paused: boolean;
    /** Jobs in the states a consumer takes them from (the initial and the working states). */
    waitingJobs: number;
    /** Batches waiting for batch work: submitted (not yet expanded) or to be reported. */
    waitingBatches: number;
    /** When a job or batch of it last moved (see MovementTracker). */
    lastMovedAt: number;
  };
  /** Unfinished batches (not completed, deleted or failed), oldest first. */
  openBatches: readonly OpenBatch[];
  /** Collection holds. */
  holds: readonly CollectionHold[];
  /** Jobs retried at least once, most retried first (at most a bounded number of them). */
  retried: readonly RetriedJob[];
  /** Jobs whose retries were looked at; `partial` when the bound left some out. */
  retriesRead: { jobs: number; partial: boolean };
  engines: {
    /** Registered at the last listing; undefined before one succeeded. */
    registered: number | undefined;
    gone: readonly GoneEngine[];
    /** When fewer than `min_engines` began to be registered; undefined while enough are. */
    fewerSince: number | undefined;
  };
}

export interface OpenBatch {
  bid: string;
  status: string;
  /** When the batch was submitted: its status node's creation. */
  createdAt: number;
}

export interface CollectionHold {
  collection: string;
  /** When the hold node was created. */
  since: number;
  /** The maintenance window that placed it, and when that window ends. */
  window?: { name: string; until: number };
}

export interface RetriedJob {
  jid: string;
  state: string;
  /** `retry_count` (requeues) plus the transient failures of its current step. */
  retries: number;
  retryCount: number;
  failures: number;
}
