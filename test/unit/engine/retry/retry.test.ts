import { describe, expect, it } from 'vitest';
import { classifyFailure } from '../../../../src/engine/retry/classify.js';
import { decideFailure, RetryLaterError } from '../../../../src/engine/retry/decide.js';
import {
  DEFAULT_RETRY_RULE,
  delayAfter,
  retryPolicySchema,
  ruleFor,
} from '../../../../src/engine/retry/policy.js';
import { FetchError, ManifestError } from '../../../../src/steps/intake-errors.js';
import { OutputError } from '../../../../src/steps/output-errors.js';
import { ZkError } from '../../../../src/zk/index.js';
import { QueueError } from '../../../../src/queue/tree/errors.js';

const sysError = (code: string): Error => Object.assign(new Error(`connect ${code}`), { code });

describe('classifyFailure', () => {
  it.each([
    [
      new FetchError('FETCH_STATUS', 'http://x/f', 'GET http://x/f: 503', { status: 503, retryable: true }),
      'transient',
      'HTTP_503',
    ],
    [
      new FetchError('FETCH_STATUS', 'http://x/f', 'GET http://x/f: 429', { status: 429 }),
      'transient',
      'HTTP_429',
    ],
    [
      new FetchError('FETCH_NOT_FOUND', 'http://x/f', 'GET http://x/f: 404', { status: 404 }),
      'permanent',
      'HTTP_404',
    ],
    [new FetchError('DIGEST_MISMATCH', 'http://x/f', 'sha256 mismatch'), 'permanent', 'DIGEST_MISMATCH'],
    [new FetchError('SIZE_MISMATCH', 'http://x/f', 'size mismatch'), 'permanent', 'SIZE_MISMATCH'],
    [
      new FetchError('FETCH_NETWORK', 'http://x/f', 'reset', { retryable: true }),
      'transient',
      'FETCH_NETWORK',
    ],
    [new ManifestError('line 3: no URL', 3), 'permanent', 'MANIFEST_INVALID'],
    [sysError('ECONNREFUSED'), 'transient', 'ECONNREFUSED'],
    [new Error('wrapped', { cause: sysError('ECONNRESET') }), 'transient', 'ECONNRESET'],
    [Object.assign(new Error('The operation timed out'), { name: 'TimeoutError' }), 'transient', 'TIMEOUT'],
    [
      new OutputError('STORAGE_FAILED', 'storage answered 500', { retryable: true }),
      'transient',
      'STORAGE_FAILED',
    ],
    [new OutputError('OBJECT_LOCKED', 'held by another job'), 'transient', 'OBJECT_LOCKED'],
    [new OutputError('IDENTIFIER_CONFLICT', 'arks differ'), 'permanent', 'IDENTIFIER_CONFLICT'],
    [
      new ZkError('CONNECTION_LOSS', { message: 'multi: CONNECTION_LOSS' }),
      'transient',
      'ZK_CONNECTION_LOSS',
    ],
    [new QueueError('INVALID_TRANSITION', 'refused'), 'permanent', 'INVALID_TRANSITION'],
    [new Error('something odd'), 'permanent', 'ERROR'],
    ['a string', 'permanent', 'ERROR'],
  ])('%s is %s (%s)', (error, expectedClass, code) => {
    expect(classifyFailure(error)).toEqual({ class: expectedClass, code });
  });
});

describe('retry rules', () => {
  const policy = retryPolicySchema.parse({
    default: { attempts: 6 },
    steps: { notify: { first_delay: '10s' } },
    profiles: { big: { max_delay: '1h', steps: { notify: { attempts: 2 } } } },
  });

  it('takes the profile step over the profile over the step over the default', () => {
    expect(ruleFor({}, 'download', undefined)).toEqual(DEFAULT_RETRY_RULE);
    expect(ruleFor(policy, 'download', 'p')).toMatchObject({ attempts: 6, firstDelayMs: 30_000 });
    expect(ruleFor(policy, 'notify', 'p')).toMatchObject({
      attempts: 6,
      firstDelayMs: 10_000,
      maxDelayMs: 1_800_000,
    });
    expect(ruleFor(policy, 'notify', 'big')).toMatchObject({
      attempts: 2,
      firstDelayMs: 10_000,
      maxDelayMs: 3_600_000,
    });
  });

  it('doubles from the first delay up to the longest, moved by the jitter', () => {
    const rule = { ...DEFAULT_RETRY_RULE, jitter: 0 };
    expect([1, 2, 3, 4, 7, 20].map((n) => delayAfter(rule, n, 0.5))).toEqual([
      30_000, 60_000, 120_000, 240_000, 1_800_000, 1_800_000,
    ]);
    expect(delayAfter(DEFAULT_RETRY_RULE, 1, 0)).toBe(24_000);
    expect(delayAfter(DEFAULT_RETRY_RULE, 1, 0.999999)).toBeCloseTo(36_000, -1);
  });

  it('refuses a policy it cannot read, naming the field', () => {
    expect(
      retryPolicySchema.safeParse({ default: { first_delay: 'soon' } }).error?.issues[0]?.message,
    ).toContain('"soon" is not a duration');
    expect(retryPolicySchema.safeParse({ default: { attempts: 0 } }).success).toBe(false);
    expect(retryPolicySchema.safeParse({ defaults: {} }).success).toBe(false);
  });
});

describe('decideFailure', () => {
  const rule = { ...DEFAULT_RETRY_RULE, attempts: 3, jitter: 0 };
  const now = new Date('2026-11-28T17:00:00.000Z');
  const transient = new FetchError('FETCH_STATUS', 'http://x/f', 'GET http://x/f: 503', { status: 503 });

  it('waits after a transient failure with attempts left, and says when and why', () => {
    const job = { status: 'downloading', statusVersion: 4 };
    const decision = decideFailure({ job, error: transient, rule, now, engine: 'e1', random: 0.5 });
    expect(decision.error).toBeInstanceOf(RetryLaterError);
    expect(decision.error.message).toBe(
      'transient failure (HTTP_503), attempt 1 of 3: GET http://x/f: 503; next attempt at 2026-11-28T17:00:30.000Z',
    );
    expect(decision.retryInMs).toBe(30_000);
    expect(decision.record).toMatchObject({ state: 'downloading', failures: 1, limit: 3, code: 'HTTP_503' });
  });

  it('counts on from the current record of the same state, and gives up at the limit', () => {
    const record = {
      state: 'downloading',
      status_version: 5,
      class: 'transient' as const,
      code: 'HTTP_503',
      message: 'm',
      failures: 2,
      limit: 3,
      next_attempt: now.toISOString(),
      history: [],
    };
    const job = { status: 'downloading', statusVersion: 5, retry: record };
    const decision = decideFailure({ job, error: transient, rule, now, random: 0.5 });
    expect(decision.error).not.toBeInstanceOf(RetryLaterError);
    expect(decision.error.message).toBe(
      'GET http://x/f: 503 (transient failure HTTP_503; gave up after 3 attempts)',
    );
    expect(decision.record).toMatchObject({ failures: 3 });
    expect(decision.record.next_attempt).toBeUndefined();
    // A record of another status version is history: the count starts again.
    const requeued = decideFailure({
      job: { ...job, statusVersion: 9 },
      error: transient,
      rule,
      now,
      random: 0.5,
    });
    expect(requeued.record.failures).toBe(1);
  });

  it('fails a permanent failure at once, with its message unchanged', () => {
    const job = { status: 'downloading', statusVersion: 1 };
    const digest = new FetchError('DIGEST_MISMATCH', 'http://x/f', 'sha256 of f is a, manifest says b');
    const decision = decideFailure({ job, error: digest, rule, now, random: 0.5 });
    expect(decision.error.message).toBe('sha256 of f is a, manifest says b');
    expect(decision.record).toMatchObject({ class: 'permanent', code: 'DIGEST_MISMATCH', failures: 0 });
  });
});
