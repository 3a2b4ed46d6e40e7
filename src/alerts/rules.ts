import { ALERT_RULES, type AlertRule, type AlertThresholds } from './policy.js';
import type { QueueObservation } from './observation.js';

/** An item a rule is about: the queue, a batch, a collection, a job or an engine. */
export interface AlertItem {
  kind: 'queue' | 'batch' | 'collection' | 'job' | 'engine';
  id: string;
  /** One line an operator can act on. */
  detail: string;
  /** The item's measure: an age in seconds, or a number of retries. */
  value: number;
}

/** One rule evaluated: what `GET /alerts` answers and `mrtq_alert_*` expose. */
export interface RuleResult {
  rule: AlertRule;
  /** What the rule watches, in a sentence. */
  summary: string;
  /** False when the policy turns the rule off: it never fires, its value is still measured. */
  enabled: boolean;
  /** The limit: seconds, or retries for `job_retries`. */
  threshold: number;
  unit: 'seconds' | 'retries';
  /** The measure compared with it (see each rule): seconds, retries or engines. */
  value: number;
  firing: boolean;
  /** When the condition began to hold, where the data tells (ISO). */
  since?: string;
  /** The items concerned, worst first (at most {@link ITEMS_SHOWN}). */
  items: AlertItem[];
  /** How many items are concerned in all. */
  itemCount: number;
  /** Why it does not fire though it might seem to (paused, nothing waits). */
  note?: string;
}

/** Items a result lists at most; `itemCount` counts them all. */
export const ITEMS_SHOWN = 50;

const seconds = (ms: number): number => Math.max(0, Math.round(ms / 1000));
const iso = (ms: number): string => new Date(ms).toISOString();

type Evaluate = (obs: QueueObservation, t: AlertThresholds) => Omit<RuleResult, 'rule' | 'enabled'>;

function queueStopped(obs: QueueObservation, t: AlertThresholds): ReturnType<Evaluate> {
  const { paused, waitingJobs, waitingBatches, lastMovedAt } = obs.ingest;
  const idleMs = obs.at - lastMovedAt;
  const waiting = waitingJobs + waitingBatches;
  const firing = waiting > 0 && !paused && idleMs > t.queueStoppedMs;
  const note = paused
    ? 'the ingest queue is paused (/locks/queue/ingest): it is not expected to move'
    : waiting === 0
      ? 'no work waits'
      : undefined;
  const detail = `${waitingJobs} jobs and ${waitingBatches} batches wait; last transition seen ${iso(lastMovedAt)}`;
  const items: AlertItem[] = firing ? [{ kind: 'queue', id: 'ingest', detail, value: seconds(idleMs) }] : [];
  return {
    summary: 'The ingest queue made no transition for longer than this while work waits and it is not paused',
    threshold: seconds(t.queueStoppedMs),
    unit: 'seconds',
    value: seconds(idleMs),
    firing,
    ...(firing ? { since: iso(lastMovedAt + t.queueStoppedMs) } : {}),
    items,
    itemCount: items.length,
    ...(note ? { note } : {}),
  };
}

function batchAge(obs: QueueObservation, t: AlertThresholds): ReturnType<Evaluate> {
  const over = obs.openBatches.filter((b) => obs.at - b.createdAt > t.batchAgeMs);
  const oldest = obs.openBatches[0];
  return {
    summary: 'A batch not yet completed, failed or deleted was submitted longer ago than this',
    threshold: seconds(t.batchAgeMs),
    unit: 'seconds',
    value: oldest ? seconds(obs.at - oldest.createdAt) : 0,
    firing: over.length > 0,
    ...(over[0] ? { since: iso(over[0].createdAt + t.batchAgeMs) } : {}),
    items: over.slice(0, ITEMS_SHOWN).map((b) => ({
      kind: 'batch',
      id: b.bid,
      detail: `${b.status} since its submission ${iso(b.createdAt)}`,
      value: seconds(obs.at - b.createdAt),
    })),
    itemCount: over.length,
  };
}

function collectionHold(obs: QueueObservation, t: AlertThresholds): ReturnType<Evaluate> {
  // A window's hold lasts as long as the window planned; only one it outlived counts.
  const counted = obs.holds
    .filter((h) => !h.window || h.window.until <= obs.at)
    .sort((a, b) => a.since - b.since);
  const over = counted.filter((h) => obs.at - h.since > t.collectionHoldMs);
  const oldest = counted[0];
  const detail = (h: (typeof counted)[number]): string =>
    h.window
      ? `held by window ${h.window.name} since ${iso(h.since)}, which ended ${iso(h.window.until)}`
      : `held since ${iso(h.since)}`;
  return {
    summary: 'A collection has been on hold longer than this (a maintenance window only once it ended)',
    threshold: seconds(t.collectionHoldMs),
    unit: 'seconds',
    value: oldest ? seconds(obs.at - oldest.since) : 0,
    firing: over.length > 0,
    ...(over[0] ? { since: iso(over[0].since + t.collectionHoldMs) } : {}),
    items: over.slice(0, ITEMS_SHOWN).map((h) => ({
      kind: 'collection',
      id: h.collection,
      detail: detail(h),
      value: seconds(obs.at - h.since),
    })),
    itemCount: over.length,
  };
}

function jobRetries(obs: QueueObservation, t: AlertThresholds): ReturnType<Evaluate> {
  const over = obs.retried.filter((j) => j.retries > t.jobRetries);
  const partial = obs.retriesRead.partial;
  return {
    summary:
      'A job not completed was retried more times than this (requeues, retry_count, and transient failures of its current step)',
    threshold: t.jobRetries,
    unit: 'retries',
    value: obs.retried[0]?.retries ?? 0,
    firing: over.length > 0,
    items: over.slice(0, ITEMS_SHOWN).map((j) => ({
      kind: 'job',
      id: j.jid,
      detail: `${j.state}: retry_count ${j.retryCount}, ${j.failures} transient failures of its current step`,
      value: j.retries,
    })),
    itemCount: over.length,
    ...(partial ? { note: `only ${obs.retriesRead.jobs} jobs were read` } : {}),
  };
}

function engineGone(obs: QueueObservation, t: AlertThresholds): ReturnType<Evaluate> {
  const { gone, registered, fewerSince } = obs.engines;
  const long = gone.filter((e) => obs.at - e.goneAt > t.engineGoneMs);
  const fewer = t.minEngines > 0 && fewerSince !== undefined && obs.at - fewerSince > t.engineGoneMs;
  const items: AlertItem[] = long.map((e) => ({
    kind: 'engine',
    id: e.id,
    detail: `${e.host} pid ${e.pid} (${e.states.join(', ') || 'no job states'}) gone since ${iso(e.goneAt)}`,
    value: seconds(obs.at - e.goneAt),
  }));
  if (fewer)
    items.push({
      kind: 'engine',
      id: '(minimum)',
      detail: `${registered ?? 0} engines registered, fewer than min_engines ${t.minEngines} since ${iso(fewerSince)}`,
      value: seconds(obs.at - fewerSince),
    });
  const starts = [...long.map((e) => e.goneAt), ...(fewer ? [fewerSince] : [])];
  return {
    summary:
      'An engine process stopped without a clean stop (its /engines node went) and was not replaced for longer than this, or fewer than min_engines are registered',
    threshold: seconds(t.engineGoneMs),
    unit: 'seconds',
    value: gone.length,
    firing: items.length > 0,
    ...(starts.length > 0 ? { since: iso(Math.min(...starts) + t.engineGoneMs) } : {}),
    items: items.slice(0, ITEMS_SHOWN),
    itemCount: items.length,
  };
}

const RULES: Readonly<Record<AlertRule, Evaluate>> = {
  queue_stopped: queueStopped,
  batch_age: batchAge,
  collection_hold: collectionHold,
  job_retries: jobRetries,
  engine_gone: engineGone,
};

/** Every rule over one observation; a rule the policy turns off is measured but never fires. */
export function evaluateRules(obs: QueueObservation, thresholds: AlertThresholds): RuleResult[] {
  return ALERT_RULES.map((rule) => {
    const result = RULES[rule](obs, thresholds);
    const enabled = !thresholds.off.has(rule);
    if (enabled) return { rule, enabled, ...result };
    const { since: _since, ...rest } = result;
    return {
      rule,
      enabled,
      ...rest,
      firing: false,
      items: [],
      itemCount: 0,
      note: 'turned off by the policy',
    };
  });
}
