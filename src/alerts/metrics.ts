import { Counter, Gauge, Registry } from 'prom-client';
import type { AlertsReport } from './report.js';
import type { AlertRule } from './policy.js';
import { AGE_QUANTILES } from './quantiles.js';

type Sample = { labels?: Record<string, string>; value: number };

/** A gauge of the last evaluation: `read` gives its samples, none before the first evaluation. */
interface AlertGauge {
  name: string;
  help: string;
  labelNames?: string[];
  read(report: AlertsReport): Sample[];
}

const valueOf = (report: AlertsReport, rule: AlertRule): Sample[] => {
  const result = report.rules.find((r) => r.rule === rule);
  return result ? [{ value: result.value }] : [];
};

/**
 * The metrics of the alert rules, each a Prometheus alert can use (otel/prometheus/alerts.yml):
 * whether each rule fires, its threshold, and the value each rule compares with it; and each job
 * state's time-in-state quantiles. Their names are those of docs/engine.md, "Alerts".
 */
export const ALERT_GAUGES: readonly AlertGauge[] = [
  {
    name: 'mrtq_alert_active',
    help: 'Whether an alert rule fires (1) or not (0) at the last evaluation, by rule (GET /alerts).',
    labelNames: ['rule'],
    read: (r) => r.rules.map((x) => ({ labels: { rule: x.rule }, value: x.firing ? 1 : 0 })),
  },
  {
    name: 'mrtq_alert_threshold',
    help: "An alert rule's threshold (/policies/alerts): seconds, or retries for job_retries.",
    labelNames: ['rule'],
    read: (r) => r.rules.map((x) => ({ labels: { rule: x.rule }, value: x.threshold })),
  },
  {
    name: 'mrtq_alert_items',
    help: 'Items an alert rule is about now (batches, collections, jobs, engines), by rule.',
    labelNames: ['rule'],
    read: (r) => r.rules.map((x) => ({ labels: { rule: x.rule }, value: x.itemCount })),
  },
  {
    name: 'mrtq_queue_last_transition_age_seconds',
    help: 'Seconds since a job or batch of the queue last moved (to within one evaluation interval).',
    labelNames: ['queue'],
    read: (r) => valueOf(r, 'queue_stopped').map((s) => ({ ...s, labels: { queue: 'ingest' } })),
  },
  {
    name: 'mrtq_queue_waiting',
    help: 'Work waiting for an engine: jobs in the initial and working states, batches to expand or report.',
    labelNames: ['queue', 'kind'],
    read: (r) =>
      r.ingest
        ? [
            { labels: { queue: 'ingest', kind: 'jobs' }, value: r.ingest.waitingJobs },
            { labels: { queue: 'ingest', kind: 'batches' }, value: r.ingest.waitingBatches },
          ]
        : [],
  },
  {
    name: 'mrtq_batch_oldest_age_seconds',
    help: 'Age of the oldest batch not yet completed, failed or deleted, from its submission (0: none).',
    read: (r) => valueOf(r, 'batch_age'),
  },
  {
    name: 'mrtq_collection_hold_oldest_age_seconds',
    help: 'Age of the oldest collection hold (a window hold once its window ended; 0: none).',
    read: (r) => valueOf(r, 'collection_hold'),
  },
  {
    name: 'mrtq_job_retries_max',
    help: 'The most retries of a job in a working or failed state (retry_count plus transient failures).',
    read: (r) => valueOf(r, 'job_retries'),
  },
  {
    name: 'mrtq_engines_registered',
    help: 'Engine processes registered under /engines.',
    read: (r) => (r.engines?.registered !== undefined ? [{ value: r.engines.registered }] : []),
  },
  {
    name: 'mrtq_engines_gone',
    help: 'Engine processes that went without a clean stop and were not replaced (seen by this process).',
    read: (r) => valueOf(r, 'engine_gone'),
  },
  {
    name: 'mrtq_job_state_age_seconds',
    help: 'How long jobs have been in their state (their ref under /jobs/states), by state and quantile (1: the oldest).',
    labelNames: ['state', 'quantile'],
    read: (r) =>
      r.stateAges.flatMap((age) =>
        AGE_QUANTILES.flatMap((q) => {
          const value = age.quantiles[String(q)];
          return value === undefined ? [] : [{ labels: { state: age.state, quantile: String(q) }, value }];
        }),
      ),
  },
  {
    name: 'mrtq_job_state_age_jobs_read',
    help: 'Jobs whose age mrtq_job_state_age_seconds was computed from, by state (fewer than mrtq_jobs: a sample).',
    labelNames: ['state'],
    read: (r) => r.stateAges.map((age) => ({ labels: { state: age.state }, value: age.read })),
  },
  {
    name: 'mrtq_alerts_evaluated_timestamp_seconds',
    help: 'When the alert rules were last evaluated (Unix time); stale when evaluations fail.',
    read: (r) => (r.evaluatedAt ? [{ value: Date.parse(r.evaluatedAt) / 1000 }] : []),
  },
];

/** A registry of the alert metrics, read from `report()` at every scrape. */
export function alertRegistry(report: () => AlertsReport): Registry {
  const registry = new Registry();
  for (const spec of ALERT_GAUGES) {
    const gauge: Gauge = new Gauge({
      name: spec.name,
      help: spec.help,
      labelNames: spec.labelNames ?? [],
      registers: [registry],
      collect: () => {
        gauge.reset();
        for (const sample of spec.read(report())) gauge.set(sample.labels ?? {}, sample.value);
      },
    });
  }
  let counted = 0;
  const failures: Counter = new Counter({
    name: 'mrtq_alerts_evaluation_failures_total',
    help: 'Evaluations of the alert rules that failed (ZooKeeper unavailable…); the last results stand.',
    registers: [registry],
    collect: () => {
      const total = report().failures;
      if (total > counted) failures.inc(total - counted);
      counted = total;
    },
  });
  return registry;
}
