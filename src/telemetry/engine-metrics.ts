import { Counters, Histograms, type MetricFamily } from './prometheus.js';

const STEP_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 1800];
const ZK_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5];
const CLEANUP_BUCKETS = [0.1, 0.5, 1, 5, 15, 60, 300, 1800];

/** How a scheduled cleanup run ended: it ran, another engine held `/locks/cleanup`, or it failed. */
export type CleanupOutcome = 'done' | 'locked' | 'failed';

/**
 * What this process's engine and ZooKeeper client count: transitions, step failures and
 * durations, lock contention, ZooKeeper request latency. Exposed by `/metrics`.
 */
export class EngineMetrics {
  private readonly counters = new Counters();
  private readonly histograms = new Histograms();

  constructor() {
    this.counters.declare(
      'mrtq_transitions_total',
      'Transitions this process committed, by kind, from and to state.',
    );
    this.counters.declare(
      'mrtq_step_failures_total',
      'Steps of this process that ended in a failed event, by state.',
    );
    this.counters.declare(
      'mrtq_lock_contention_total',
      'Items skipped because another session held their lock, by consumer.',
    );
    this.histograms.declare(
      'mrtq_step_duration_seconds',
      'Time a step took in this process, by state.',
      STEP_BUCKETS,
    );
    this.counters.declare(
      'mrtq_cleanup_runs_total',
      'Scheduled cleanup runs of this process, by outcome (done, locked: another engine ran it, failed).',
    );
    this.counters.declare(
      'mrtq_cleanup_removed_total',
      'What scheduled cleanup in this process removed, by kind (batches, jobs, orphans, refs, uuids, workdirs).',
    );
    this.histograms.declare(
      'mrtq_cleanup_duration_seconds',
      'Time a scheduled cleanup run of this process took, by outcome.',
      CLEANUP_BUCKETS,
    );
    this.histograms.declare(
      'mrtq_zk_request_duration_seconds',
      'ZooKeeper request latency, by operation and outcome.',
      ZK_BUCKETS,
    );
  }

  transition(kind: 'job' | 'batch' | 'access', from: string, to: string): void {
    this.counters.inc('mrtq_transitions_total', { kind, from, to });
  }
  stepFailed(state: string): void {
    this.counters.inc('mrtq_step_failures_total', { state });
  }
  stepDuration(state: string, seconds: number): void {
    this.histograms.observe('mrtq_step_duration_seconds', { state }, seconds);
  }
  lockContention(consumer: string): void {
    this.counters.inc('mrtq_lock_contention_total', { consumer });
  }
  zkRequest(operation: string, ms: number, outcome: string): void {
    this.histograms.observe('mrtq_zk_request_duration_seconds', { operation, outcome }, ms / 1000);
  }

  /** One scheduled cleanup run: its outcome, duration, and what it removed by kind. */
  cleanupRun(outcome: CleanupOutcome, seconds: number, removed: Readonly<Record<string, number>> = {}): void {
    this.counters.inc('mrtq_cleanup_runs_total', { outcome });
    this.histograms.observe('mrtq_cleanup_duration_seconds', { outcome }, seconds);
    for (const [kind, count] of Object.entries(removed))
      if (count > 0) this.counters.inc('mrtq_cleanup_removed_total', { kind }, count);
  }

  toFamilies(): MetricFamily[] {
    return [...this.counters.toFamilies(), ...this.histograms.toFamilies()];
  }
}
