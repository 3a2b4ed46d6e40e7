import type { Registry } from 'prom-client';
import type { StoredPolicy } from '../queue/policies/store.js';
import type { AlertsPolicy } from './policy.js';
import type { RuleResult } from './rules.js';
import type { StateAge } from './state-ages.js';

/** What `GET /alerts` answers and `/metrics` exposes: the last evaluation. */
export interface AlertsReport {
  /** When the rules were last evaluated (ISO); absent before the first evaluation ended. */
  evaluatedAt?: string;
  intervalMs: number;
  /** The policy in force and its node's version (-1: absent, defaults apply). */
  policy: StoredPolicy<AlertsPolicy>;
  rules: RuleResult[];
  /** Jobs' time in their state, per state that is not final. */
  stateAges: StateAge[];
  ingest?: { paused: boolean; waitingJobs: number; waitingBatches: number; lastMovedAt: string };
  engines?: { registered: number | undefined; gone: number };
  /** The last evaluation failed (the results are those of the one before); why. */
  error?: string;
  /** Evaluations that failed since the process started. */
  failures: number;
}

/** What the API reads of the alerts: the last evaluation, and its metrics for `/metrics`. */
export interface AlertsView {
  readonly registry: Registry;
  current(): AlertsReport;
}
