import type { Logger } from 'pino';
import { concatMap, retry, tap, type Subscription } from 'rxjs';
import { ALERTS_POLICY, type StoredPolicy } from '../queue/policies/store.js';
import type { QueueContext } from '../queue/tree/context.js';
import { cleanlyStoppedEngines, ENGINES, listEngines } from '../queue/tree/engines.js';
import { children$ } from '../streams/children.js';
import { policy$ } from '../streams/policy.js';
import { EngineTracker } from './engine-tracker.js';
import { QueueObserver, type ObserverOptions } from './observe.js';
import {
  alertsPolicySchema,
  EMPTY_ALERTS_POLICY,
  thresholdsOf,
  type AlertRule,
  type AlertsPolicy,
} from './policy.js';
import { evaluateRules, type RuleResult } from './rules.js';
import { alertRegistry } from './metrics.js';
import type { AlertsReport, AlertsView } from './report.js';

/** How often the rules are evaluated by default: ZooKeeper is read no more often than this. */
export const DEFAULT_ALERTS_INTERVAL_MS = 30_000;
const WATCH_RETRY_MS = 5_000;

export interface AlertMonitorDeps {
  queue: QueueContext;
  log: Logger;
  intervalMs?: number;
  /** The clock, ms since the epoch (default Date.now). */
  now?: () => number;
  observer?: ObserverOptions;
}

/**
 * Evaluates the alert rules in a serving process (src/service.ts starts it with the HTTP API):
 * one evaluation at a time, every `intervalMs`; the policy and the registered engines are
 * watched, so a new threshold applies at the next evaluation and an engine is seen going when it
 * goes. Every serving process evaluates on its own; they read the same tree and agree, except on
 * engines gone before one of them started (docs/engine.md, "Alerts").
 */
export class AlertMonitor implements AlertsView {
  readonly intervalMs: number;
  readonly registry = alertRegistry(() => this.report);
  private readonly now: () => number;
  private readonly log: Logger;
  private readonly engines: EngineTracker;
  private readonly observer: QueueObserver;
  private readonly subscriptions: Subscription[] = [];
  private policy: StoredPolicy<AlertsPolicy> = { value: EMPTY_ALERTS_POLICY, version: -1 };
  private report: AlertsReport;
  private readonly firingSince = new Map<AlertRule, string>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;
  private previous: readonly RuleResult[] = [];

  constructor(private readonly deps: AlertMonitorDeps) {
    this.intervalMs = deps.intervalMs ?? DEFAULT_ALERTS_INTERVAL_MS;
    this.now = deps.now ?? Date.now;
    this.log = deps.log.child({ component: 'alerts' });
    const started = this.now();
    this.engines = new EngineTracker(started);
    this.observer = new QueueObserver(deps.queue, this.engines, started, deps.observer);
    this.report = { intervalMs: this.intervalMs, policy: this.policy, rules: [], stateAges: [], failures: 0 };
  }

  /** The last evaluation. */
  current(): AlertsReport {
    return this.report;
  }

  /** Starts watching and evaluating; the first evaluation runs at once. */
  start(): this {
    const { zk } = this.deps.queue;
    const warn = (what: string) => (err: unknown) => this.log.warn({ err }, `${what} not read; trying again`);
    this.subscriptions.push(
      policy$(zk, ALERTS_POLICY, alertsPolicySchema, EMPTY_ALERTS_POLICY, (problem) =>
        this.log.warn({ path: ALERTS_POLICY, problem }, 'alerts policy unreadable; defaults apply'),
      )
        .pipe(tap({ error: warn('alerts policy') }), retry({ delay: WATCH_RETRY_MS, resetOnSuccess: true }))
        .subscribe((policy) => (this.policy = policy)),
      children$(zk, ENGINES)
        .pipe(
          concatMap(async () => ({
            engines: await listEngines(this.deps.queue),
            stopped: await cleanlyStoppedEngines(this.deps.queue),
            at: this.now(),
          })),
          tap({ error: warn('engines') }),
          retry({ delay: WATCH_RETRY_MS, resetOnSuccess: true }),
        )
        .subscribe(({ engines, stopped, at }) => this.engines.update(engines, stopped, at)),
    );
    this.schedule(0);
    return this;
  }

  /** Evaluates now (the timer's next run follows from this one); resolves when done. */
  evaluateNow(): Promise<void> {
    this.running ??= this.evaluate().finally(() => (this.running = undefined));
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    for (const subscription of this.subscriptions) subscription.unsubscribe();
    await this.running;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      void this.evaluateNow().finally(() => this.schedule(this.intervalMs));
    }, delayMs);
  }

  private async evaluate(): Promise<void> {
    const at = this.now();
    const policy = this.policy;
    const thresholds = thresholdsOf(policy.value);
    try {
      const { observation, ages } = await this.observer.observe(at, thresholds.minEngines);
      const rules = evaluateRules(observation, thresholds).map((result) => this.withSince(result, at));
      this.report = {
        evaluatedAt: new Date(at).toISOString(),
        intervalMs: this.intervalMs,
        policy,
        rules,
        stateAges: ages,
        ingest: {
          ...observation.ingest,
          lastMovedAt: new Date(observation.ingest.lastMovedAt).toISOString(),
        },
        engines: { registered: observation.engines.registered, gone: observation.engines.gone.length },
        failures: this.report.failures,
      };
      this.logChanges(rules);
    } catch (err) {
      if (this.stopped) return;
      if (!this.report.error) this.log.warn({ err }, 'alert rules not evaluated; the last results stand');
      this.report = { ...this.report, error: (err as Error).message, failures: this.report.failures + 1 };
    }
  }

  /** A firing rule's `since`: from the data where it tells, else this process's first sight of it. */
  private withSince(result: RuleResult, at: number): RuleResult {
    if (!result.firing) {
      this.firingSince.delete(result.rule);
      return result;
    }
    const first = this.firingSince.get(result.rule) ?? result.since ?? new Date(at).toISOString();
    this.firingSince.set(result.rule, first);
    return { ...result, since: result.since ?? first };
  }

  private logChanges(rules: readonly RuleResult[]): void {
    const before = new Map(this.previous.map((r) => [r.rule, r.firing]));
    for (const r of rules) {
      if ((before.get(r.rule) ?? false) === r.firing) continue;
      const fields = { rule: r.rule, value: r.value, threshold: r.threshold, items: r.itemCount };
      if (r.firing) this.log.warn(fields, `alert firing: ${r.rule}`);
      else this.log.info(fields, `alert resolved: ${r.rule}`);
    }
    this.previous = rules;
  }
}
