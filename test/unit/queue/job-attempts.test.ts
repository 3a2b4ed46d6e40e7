import { describe, expect, it } from 'vitest';
import {
  decodeAttempts,
  encodeAttempts,
  endedLast,
  interruptedAttempts,
  poisonMessage,
  withAttempt,
  type StepAttempt,
} from '../../../src/queue/jobs/attempts.js';

/** An attempt by `engine` in a session of its own (or `session`). */
const attempt = (engine: string, session = `5e${engine.slice(1)}`): StepAttempt => ({
  engine,
  session,
  started: '2026-11-28T08:00:00Z',
});
const at = { status: 'storing', statusVersion: 5 };

describe('step attempts', () => {
  it('count the attempts of the current step that ended with their process, not those handed back', () => {
    let attempts = withAttempt(undefined, at, attempt('e1'));
    attempts = withAttempt(endedLast(attempts, 'handed back', 'now'), at, attempt('e2'));
    attempts = withAttempt(attempts, at, attempt('e3'));
    expect(interruptedAttempts(attempts, at).map((a) => a.engine)).toEqual(['e2', 'e3']);
    expect(attempts.attempts[0]!.ended).toBe('handed back at now');
  });

  it('never count an attempt of the session now taking the job: alive, it handed the attempt back', () => {
    // ZooKeeper away when the lock was let go: the mark was not written, the session lived on.
    let attempts = withAttempt(undefined, at, attempt('e1', '0x10003777a300001'));
    expect(interruptedAttempts(attempts, at, '10003777a300001')).toEqual([]);
    expect(interruptedAttempts(attempts, at, '20003777a300002').map((a) => a.engine)).toEqual(['e1']);
    // Taken again by the same session: the earlier attempt is marked, never counted by another.
    attempts = withAttempt(attempts, at, attempt('e1', '10003777a300001'));
    expect(attempts.attempts[0]!.ended).toMatch(/^handed back/);
    expect(interruptedAttempts(attempts, at, '20003777a300002')).toHaveLength(1); // the last one only
  });

  it('never count attempts of another state or of an earlier version of the status (a requeue, a commit)', () => {
    const attempts = withAttempt(undefined, at, attempt('e1'));
    expect(interruptedAttempts(attempts, { status: 'recording', statusVersion: 5 })).toEqual([]);
    expect(interruptedAttempts(attempts, { status: 'storing', statusVersion: 7 })).toEqual([]);
    expect(
      withAttempt(attempts, { status: 'storing', statusVersion: 7 }, attempt('e2')).attempts,
    ).toHaveLength(1);
  });

  it('round-trip through the node, and read anything unreadable as none', () => {
    const attempts = withAttempt(undefined, at, attempt('e1'));
    expect(decodeAttempts(encodeAttempts(attempts))).toEqual(attempts);
    for (const bad of ['', '{', '[]', '{"state":"storing"}', '{"state":1,"statusVersion":1,"attempts":[]}'])
      expect(decodeAttempts(Buffer.from(bad))).toBeUndefined();
    expect(
      decodeAttempts(Buffer.from('{"state":"s","statusVersion":1,"attempts":[{"engine":1},null]}')),
    ).toEqual({
      state: 's',
      statusVersion: 1,
      attempts: [],
    });
  });

  it('keep the last 20 attempts in the node', () => {
    let attempts = withAttempt(undefined, at, attempt('e0'));
    for (let i = 1; i < 30; i++) attempts = withAttempt(attempts, at, attempt(`e${i}`));
    expect(decodeAttempts(encodeAttempts(attempts))!.attempts.map((a) => a.engine)[0]).toBe('e10');
  });

  it('name the step, each engine and what to do in the poison message', () => {
    const message = poisonMessage('storing', [attempt('e1'), attempt('e2'), attempt('e3')], 3);
    expect(message).toMatch(/^poison: the storing step of this job was started 3 times/);
    expect(message).toContain('engine e2 (session 5e2) at 2026-11-28T08:00:00Z');
    expect(message).toContain('then requeue the job');
  });
});
