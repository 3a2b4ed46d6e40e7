import { describe, expect, it } from 'vitest';
import { alertsPolicySchema, thresholdsOf, DEFAULT_ALERT_THRESHOLDS } from '../../../src/alerts/policy.js';
import { formatAlerts } from '../../../src/cli/commands/alerts.js';

describe('the alerts policy', () => {
  it('takes durations as ms or as written, and applies the defaults where it says nothing', () => {
    const policy = alertsPolicySchema.parse({ queue_stopped: '30m', batch_age: 3_600_000, job_retries: 5 });
    expect(policy).toEqual({ queue_stopped: 1_800_000, batch_age: 3_600_000, job_retries: 5 });
    const thresholds = thresholdsOf(policy);
    expect(thresholds.queueStoppedMs).toBe(1_800_000);
    expect(thresholds.collectionHoldMs).toBe(DEFAULT_ALERT_THRESHOLDS.collectionHoldMs);
    expect(thresholds.engineGoneMs).toBe(120_000);
  });

  it('refuses what it cannot read, naming the field', () => {
    const bad = alertsPolicySchema.safeParse({ queue_stopped: 'soon', off: ['queue_frozen'], extra: 1 });
    expect(bad.success).toBe(false);
    const issues = bad.error?.issues.map((i) => i.path.join('.')) ?? [];
    expect(issues).toEqual(expect.arrayContaining(['queue_stopped', 'off.0']));
    expect(alertsPolicySchema.safeParse({ job_retries: -1 }).success).toBe(false);
  });
});

describe('mrtq alerts output', () => {
  it('shows each rule, and the items of a firing one', () => {
    const text = formatAlerts({
      evaluating: true,
      evaluatedAt: '2026-12-01T12:00:00.000Z',
      rules: [
        {
          rule: 'queue_stopped',
          enabled: true,
          firing: false,
          threshold: 900,
          unit: 'seconds',
          value: 3,
          itemCount: 0,
          items: [],
        },
        {
          rule: 'batch_age',
          enabled: true,
          firing: true,
          threshold: 86400,
          unit: 'seconds',
          value: 90000,
          since: '2026-12-01T11:00:00.000Z',
          itemCount: 3,
          items: [{ kind: 'batch', id: 'bid0000000001', detail: 'pending since its submission' }],
        },
        {
          rule: 'job_retries',
          enabled: false,
          firing: false,
          threshold: 3,
          unit: 'retries',
          value: 0,
          itemCount: 0,
          items: [],
        },
      ],
    });
    expect(text.split('\n')).toEqual([
      'evaluated 2026-12-01T12:00:00.000Z',
      'ok     queue_stopped    value 3, threshold 900s',
      'FIRING batch_age        value 90000, threshold 86400s since 2026-12-01T11:00:00.000Z',
      '         batch bid0000000001: pending since its submission',
      '         … and 2 more',
      'off    job_retries      value 0, threshold 3 retries',
      '',
    ]);
  });
});
