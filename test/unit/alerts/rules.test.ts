import { describe, expect, it } from 'vitest';
import { DEFAULT_ALERT_THRESHOLDS, thresholdsOf, type AlertRule } from '../../../src/alerts/policy.js';
import type { QueueObservation } from '../../../src/alerts/observation.js';
import { evaluateRules, type RuleResult } from '../../../src/alerts/rules.js';

const AT = Date.parse('2026-12-01T12:00:00Z');
const MIN = 60_000;
const HOUR = 60 * MIN;

/** A queue where nothing is wrong: it moved a minute ago, nothing waits, no batch, hold or engine gone. */
function calm(overrides: Partial<QueueObservation> = {}): QueueObservation {
  return {
    at: AT,
    ingest: { paused: false, waitingJobs: 0, waitingBatches: 0, lastMovedAt: AT - MIN },
    openBatches: [],
    holds: [],
    retried: [],
    retriesRead: { jobs: 0, partial: false },
    engines: { registered: 1, gone: [], fewerSince: undefined },
    ...overrides,
  };
}

function ruleOf(obs: QueueObservation, rule: AlertRule, thresholds = DEFAULT_ALERT_THRESHOLDS): RuleResult {
  const result = evaluateRules(obs, thresholds).find((r) => r.rule === rule);
  if (!result) throw new Error(`no result for ${rule}`);
  return result;
}

describe('the alert rules over one observation', () => {
  it('fire none on a calm queue, and give every rule a result with its threshold', () => {
    const results = evaluateRules(calm(), DEFAULT_ALERT_THRESHOLDS);
    expect(results.map((r) => [r.rule, r.firing])).toEqual([
      ['queue_stopped', false],
      ['batch_age', false],
      ['collection_hold', false],
      ['job_retries', false],
      ['engine_gone', false],
    ]);
    expect(results.find((r) => r.rule === 'queue_stopped')?.threshold).toBe(900);
    expect(results.find((r) => r.rule === 'job_retries')).toMatchObject({ threshold: 3, unit: 'retries' });
  });

  it('queue_stopped fires when work waits, nothing pauses the queue and it has not moved for longer than the limit', () => {
    const ingest = { paused: false, waitingJobs: 4, waitingBatches: 1, lastMovedAt: AT - 16 * MIN };
    const stopped = ruleOf(calm({ ingest }), 'queue_stopped');
    expect(stopped).toMatchObject({ firing: true, value: 960, itemCount: 1 });
    expect(stopped.since).toBe(new Date(AT - MIN).toISOString());
    expect(stopped.items[0]).toMatchObject({ kind: 'queue', id: 'ingest', value: 960 });
    expect(stopped.items[0]?.detail).toContain('4 jobs and 1 batches wait');
    // Fourteen minutes is within the limit.
    expect(ruleOf(calm({ ingest: { ...ingest, lastMovedAt: AT - 14 * MIN } }), 'queue_stopped').firing).toBe(
      false,
    );
  });

  it('queue_stopped does not fire for a paused queue, nor when nothing waits, and says why', () => {
    const idle = { waitingJobs: 4, waitingBatches: 0, lastMovedAt: AT - 2 * HOUR };
    const paused = ruleOf(calm({ ingest: { ...idle, paused: true } }), 'queue_stopped');
    expect(paused).toMatchObject({ firing: false, value: 7200, items: [] });
    expect(paused.note).toContain('paused');
    const empty = ruleOf(calm({ ingest: { ...idle, paused: false, waitingJobs: 0 } }), 'queue_stopped');
    expect(empty).toMatchObject({ firing: false, note: 'no work waits' });
  });

  it('batch_age lists the unfinished batches older than the limit, oldest first, and measures the oldest', () => {
    const openBatches = [
      { bid: 'bid0000000001', status: 'processing', createdAt: AT - 30 * HOUR },
      { bid: 'bid0000000002', status: 'pending', createdAt: AT - 25 * HOUR },
      { bid: 'bid0000000003', status: 'pending', createdAt: AT - HOUR },
    ];
    const old = ruleOf(calm({ openBatches }), 'batch_age');
    expect(old).toMatchObject({ firing: true, value: 30 * 3600, itemCount: 2 });
    expect(old.items.map((i) => i.id)).toEqual(['bid0000000001', 'bid0000000002']);
    expect(old.since).toBe(new Date(AT - 6 * HOUR).toISOString());
    const young = ruleOf(calm({ openBatches: openBatches.slice(2) }), 'batch_age');
    expect(young).toMatchObject({ firing: false, value: 3600, itemCount: 0 });
  });

  it("collection_hold counts an operator's hold from its creation, and a window's only once the window ended", () => {
    const holds = [
      { collection: 'ucb', since: AT - 2 * 24 * HOUR },
      { collection: 'planned', since: AT - 2 * 24 * HOUR, window: { name: 'upgrade', until: AT + HOUR } },
      { collection: 'overrun', since: AT - 30 * HOUR, window: { name: 'migration', until: AT - HOUR } },
      { collection: 'fresh', since: AT - HOUR },
    ];
    const held = ruleOf(calm({ holds }), 'collection_hold');
    expect(held.firing).toBe(true);
    expect(held.items.map((i) => i.id)).toEqual(['ucb', 'overrun']);
    expect(held.items[1]?.detail).toContain('window migration');
    expect(held.value).toBe(48 * 3600);
  });

  it('job_retries fires for jobs retried more than the limit and says when only part was read', () => {
    const retried = [
      { jid: 'jid0000000007', state: 'failed', retries: 5, retryCount: 1, failures: 4 },
      { jid: 'jid0000000008', state: 'downloading', retries: 3, retryCount: 0, failures: 3 },
    ];
    const result = ruleOf(calm({ retried, retriesRead: { jobs: 20_000, partial: true } }), 'job_retries');
    expect(result).toMatchObject({ firing: true, value: 5, itemCount: 1 });
    expect(result.items[0]).toMatchObject({ id: 'jid0000000007', value: 5 });
    expect(result.note).toContain('20000');
  });

  it('engine_gone fires for an engine gone longer than the limit, and when fewer than min_engines are registered', () => {
    const engine = { id: 'h1-10-aa', host: 'h1', pid: 10, states: ['pending'] };
    const gone = [
      { ...engine, goneAt: AT - 3 * MIN },
      { ...engine, id: 'h2-11-bb', host: 'h2', goneAt: AT - MIN },
    ];
    const result = ruleOf(calm({ engines: { registered: 1, gone, fewerSince: undefined } }), 'engine_gone');
    expect(result).toMatchObject({ firing: true, value: 2, itemCount: 1 });
    expect(result.items[0]?.id).toBe('h1-10-aa');
    expect(result.since).toBe(new Date(AT - MIN).toISOString());
    const thresholds = thresholdsOf({ min_engines: 2 });
    const fewer = calm({ engines: { registered: 1, gone: [], fewerSince: AT - 5 * MIN } });
    expect(ruleOf(fewer, 'engine_gone', thresholds).items[0]?.detail).toContain('fewer than min_engines 2');
    const justNow = calm({ engines: { registered: 1, gone: [], fewerSince: AT - MIN } });
    expect(ruleOf(justNow, 'engine_gone', thresholds).firing).toBe(false);
  });

  it('a rule the policy turns off is measured but never fires', () => {
    const ingest = { paused: false, waitingJobs: 1, waitingBatches: 0, lastMovedAt: AT - HOUR };
    const result = ruleOf(calm({ ingest }), 'queue_stopped', thresholdsOf({ off: ['queue_stopped'] }));
    expect(result).toMatchObject({ enabled: false, firing: false, value: 3600, items: [] });
    expect(result.since).toBeUndefined();
  });
});
