import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { readFamilies, snapshotFamilies, type MetricFamily, type MetricsProvider } from './prometheus.js';

const STEP_BUCKETS = [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60, 300, 1800];
const ZK_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5];
const CLEANUP_BUCKETS = [0.1, 0.5, 1, 5, 15, 60, 300, 1800];

/** How a scheduled cleanup run ended: it ran, another engine held `/locks/cleanup`, or it failed. */
export type CleanupOutcome = 'done' | 'locked' | 'failed';

/**
 * What this process's engine and ZooKeeper client count: transitions, step failures and
 * durations, lock contention, ZooKeeper request latency. Kept by prom-client in this engine's own
 * {@link registry} (not the global one: tests run several engines in one process), which
 * `/metrics` merges with the API's.
 */
export class EngineMetrics implements MetricsProvider {
  readonly registry = new Registry();

  private counter<L extends string>(name: string, help: string, labelNames: readonly L[]): Counter<L> {
    return new Counter({ name, help, labelNames, registers: [this.registry] });
  }
  private histogram<L extends string>(
    name: string,
    help: string,
    labelNames: readonly L[],
    buckets: number[],
  ): Histogram<L> {
    return new Histogram({ name, help, labelNames, buckets, registers: [this.registry] });
  }

  private readonly transitions = this.counter(
    'mrtq_transitions_total',
    'Transitions this process committed, by kind, from and to state.',
    ['kind', 'from', 'to'],
  );
  private readonly stepFailures = this.counter(
    'mrtq_step_failures_total',
    'Steps of this process that failed, by state, class (transient, permanent) and outcome (retry: the job waits for its next attempt; fail: the job failed).',
    ['state', 'class', 'outcome'],
  );
  private readonly poisoned = this.counter(
    'mrtq_jobs_poisoned_total',
    'Jobs this process failed as poison (their step ended with its process or session too often), by state.',
    ['state'],
  );
  private readonly interrupted = this.counter(
    'mrtq_step_attempts_interrupted_total',
    'Step attempts found ended with their process or session (no commit, no failure) when this process took the job, by state.',
    ['state'],
  );
  private readonly contention = this.counter(
    'mrtq_lock_contention_total',
    'Items skipped because another session held their lock, by consumer.',
    ['consumer'],
  );
  private readonly stepSeconds = this.histogram(
    'mrtq_step_duration_seconds',
    'Time a step took in this process, by state.',
    ['state'],
    STEP_BUCKETS,
  );
  private readonly cleanupRuns = this.counter(
    'mrtq_cleanup_runs_total',
    'Scheduled cleanup runs of this process, by outcome (done, locked: another engine ran it, failed).',
    ['outcome'],
  );
  private readonly cleanupRemoved = this.counter(
    'mrtq_cleanup_removed_total',
    'What scheduled cleanup in this process removed, by kind (batches, jobs, orphans, refs, uuids, workdirs).',
    ['kind'],
  );
  private readonly cleanupSeconds = this.histogram(
    'mrtq_cleanup_duration_seconds',
    'Time a scheduled cleanup run of this process took, by outcome.',
    ['outcome'],
    CLEANUP_BUCKETS,
  );
  private readonly zkSeconds = this.histogram(
    'mrtq_zk_request_duration_seconds',
    'ZooKeeper request latency, by operation and outcome.',
    ['operation', 'outcome'],
    ZK_BUCKETS,
  );

  private readonly childListBytes = new Gauge({
    name: 'mrtq_child_list_bytes',
    help: "Length of a folder's child list (a getChildren reply, bytes), as last sized by this process; batch folders as the largest of their kind (/batches/*/...).",
    labelNames: ['folder'],
    registers: [this.registry],
  });
  private readonly childListLimit = new Gauge({
    name: 'mrtq_child_list_limit_bytes',
    help: "The longest child list the tree's other readers accept (MRTQ_PEER_CHILD_LIST_BYTES).",
    registers: [this.registry],
  });

  transition(kind: 'job' | 'batch' | 'access', from: string, to: string): void {
    this.transitions.inc({ kind, from, to });
  }
  /** A step failed: classified `failureClass`, and the job waits to retry or has failed. */
  stepFailed(state: string, failureClass: string, outcome: 'retry' | 'fail'): void {
    this.stepFailures.inc({ state, class: failureClass, outcome });
  }
  stepDuration(state: string, seconds: number): void {
    this.stepSeconds.observe({ state }, seconds);
  }
  jobPoisoned(state: string): void {
    this.poisoned.inc({ state });
  }
  attemptsInterrupted(state: string, count: number): void {
    if (count > 0) this.interrupted.inc({ state }, count);
  }
  lockContention(consumer: string): void {
    this.contention.inc({ consumer });
  }
  zkRequest(operation: string, ms: number, outcome: string): void {
    this.zkSeconds.observe({ operation, outcome }, ms / 1000);
  }

  /** One scheduled cleanup run: its outcome, duration, and what it removed by kind. */
  cleanupRun(outcome: CleanupOutcome, seconds: number, removed: Readonly<Record<string, number>> = {}): void {
    this.cleanupRuns.inc({ outcome });
    this.cleanupSeconds.observe({ outcome }, seconds);
    for (const [kind, count] of Object.entries(removed))
      if (count > 0) this.cleanupRemoved.inc({ kind }, count);
  }

  /** A sizing of the child lists (src/engine/child-list-watch.ts): every batch's folder folded into its kind's largest. */
  childLists(sizes: readonly { path: string; bytes: number }[], limitBytes: number): void {
    const largest = new Map<string, number>();
    for (const { path, bytes } of sizes) {
      const folder = path.replace(/^\/batches\/[^/]+\//, '/batches/*/');
      largest.set(folder, Math.max(bytes, largest.get(folder) ?? 0));
    }
    this.childListBytes.reset();
    for (const [folder, bytes] of largest) this.childListBytes.set({ folder }, bytes);
    this.childListLimit.set(limitBytes);
  }

  /** Every metric as a family, read now (synchronously: a sampler may call it at any time). */
  toFamilies(): MetricFamily[] {
    return snapshotFamilies(this.registry);
  }

  /** The same, read through prom-client's own (asynchronous) API. */
  families(): Promise<MetricFamily[]> {
    return readFamilies(this.registry);
  }
}
