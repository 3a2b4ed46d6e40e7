import { describe, expect, it } from 'vitest';
import { HttpProblem, toHttpError } from '../../../src/http/errors.js';
import { QueueError, type QueueErrorCode } from '../../../src/queue/tree/errors.js';
import { IntakeError, UnknownProfileError } from '../../../src/steps/intake-errors.js';
import { ZkError } from '../../../src/zk/index.js';

describe('toHttpError: the one mapping of errors to answers', () => {
  it.each<[QueueErrorCode, number]>([
    ['INVALID_TRANSITION', 409],
    ['LOCK_HELD', 409],
    ['CONFLICT', 409],
    ['LOCK_LOST', 409],
    ['NOT_FOUND', 404],
    ['BAD_REQUEST', 400],
    ['ITEM_INVALID', 422],
  ])('QueueError %s → %i with its code and message', (code, status) => {
    expect(toHttpError(new QueueError(code, `the ${code} message`))).toEqual({
      status,
      body: { error: code, message: `the ${code} message` },
    });
  });

  it('prefixes a refused transition with the action', () => {
    const err = new QueueError(
      'INVALID_TRANSITION',
      'job jid1: event "admin.hold" is not allowed for a job in state completed',
    );
    expect(toHttpError(err, 'hold job').body.message).toBe(
      'cannot hold job: job jid1: event "admin.hold" is not allowed for a job in state completed',
    );
    expect(toHttpError(new QueueError('NOT_FOUND', 'gone'), 'hold job').body.message).toBe('gone');
  });

  it('names the field of a schema validation failure', () => {
    const failure = (validation: object[], validationContext = 'body') => ({ validation, validationContext });
    expect(
      toHttpError(failure([{ instancePath: '', params: { missingProperty: 'profile' }, message: 'x' }])),
    ).toEqual({
      status: 400,
      body: { error: 'VALIDATION', message: 'body.profile: required', field: 'body.profile' },
    });
    expect(
      toHttpError(failure([{ instancePath: '', params: { additionalProperty: 'bogus' } }])).body,
    ).toMatchObject({
      field: 'body.bogus',
      message: 'body.bogus: unknown field',
    });
    expect(
      toHttpError(
        failure([
          { instancePath: '/type', params: { allowedValues: ['a', 'b'] }, message: 'must be one of' },
        ]),
      ).body.message,
    ).toBe('body.type: must be one of (a, b)');
    expect(
      toHttpError(
        failure([{ instancePath: '', params: { property: 'digest_type', missingProperty: 'digest_value' } }]),
      ).body.message,
    ).toBe('body.digest_value: required with body.digest_type');
    expect(
      toHttpError(
        failure([{ instancePath: '/limit', params: {}, message: 'must match pattern' }], 'querystring'),
      ).body,
    ).toMatchObject({ field: 'querystring.limit' });
  });

  it('answers 400 for an unknown profile, 503 when ZooKeeper does not answer, and keeps HttpProblem as it is', () => {
    expect(toHttpError(new UnknownProfileError('x', ['demo']))).toMatchObject({
      status: 400,
      body: { error: 'PROFILE_UNKNOWN', field: 'body.profile' },
    });
    expect(toHttpError(new ZkError('CONNECTION_LOSS'))).toMatchObject({
      status: 503,
      body: { error: 'UNAVAILABLE' },
    });
    const problem = new HttpProblem(401, 'UNAUTHORIZED', 'no', { 'www-authenticate': 'Bearer' });
    expect(toHttpError(problem)).toEqual({
      status: 401,
      body: { error: 'UNAUTHORIZED', message: 'no' },
      headers: { 'www-authenticate': 'Bearer' },
    });
  });

  it('keeps fastify client errors (4xx) and hides everything else behind a 500', () => {
    const tooLarge = Object.assign(new Error('Request body is too large'), {
      statusCode: 413,
      code: 'FST_ERR_CTP_BODY_TOO_LARGE',
    });
    expect(toHttpError(tooLarge)).toEqual({
      status: 413,
      body: { error: 'FST_ERR_CTP_BODY_TOO_LARGE', message: 'Request body is too large' },
    });
    for (const err of [
      new Error('secret path /etc/x'),
      new ZkError('NO_AUTH'),
      new IntakeError('FETCH_TIMEOUT', 't'),
    ]) {
      const answer = toHttpError(err);
      expect(answer).toMatchObject({ status: 500, internal: true, body: { error: 'INTERNAL' } });
      expect(JSON.stringify(answer.body)).not.toMatch(/secret|NO_AUTH|stack/);
    }
  });
});
