import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { ProblemLog } from '../../../src/engine/problem-log.js';
import { QueueError } from '../../../src/queue/tree/errors.js';

function capture(): { log: pino.Logger; lines: { level: number; msg: string }[] } {
  const lines: { level: number; msg: string }[] = [];
  const log = pino(
    { level: 'debug' },
    { write: (line: string) => void lines.push(JSON.parse(line) as { level: number; msg: string }) },
  );
  return { log, lines };
}

const invalid = (message: string) => new QueueError('ITEM_INVALID', message);
const incomplete = (message: string) =>
  new QueueError('ITEM_INVALID', message, undefined, { incomplete: true });

describe('ProblemLog', () => {
  it('logs bad data once per reason, however often the item is looked at', () => {
    const { log, lines } = capture();
    const problems = new ProblemLog(log);
    for (let i = 0; i < 50; i++)
      problems.report({}, 'jid1', invalid('configuration is not JSON'), 'job jid1');
    problems.report({}, 'jid1', invalid('priority is not a number'), 'job jid1');
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [50, 'job jid1 cannot be used; skipped until its nodes change'],
      [50, 'job jid1 cannot be used; skipped until its nodes change'],
    ]);
    problems.clear('jid1');
    problems.report({}, 'jid1', invalid('priority is not a number'), 'job jid1');
    expect(lines).toHaveLength(3);
  });

  it('logs an item still being written at debug, and as a problem once it stays incomplete', () => {
    const { log, lines } = capture();
    let now = 1_000_000;
    const problems = new ProblemLog(log, () => now);
    problems.report({}, 'qid1', incomplete('status is missing'), 'access request qid1');
    now += 1_000;
    problems.report({}, 'qid1', incomplete('status is missing'), 'access request qid1');
    expect(lines.map((l) => l.level)).toEqual([20]);
    now += 1_000;
    for (let i = 0; i < 3; i++)
      problems.report({}, 'qid1', incomplete('status is missing'), 'access request qid1');
    expect(lines.map((l) => [l.level, l.msg])).toEqual([
      [20, 'access request qid1 is not complete yet; read again when its nodes change'],
      [50, 'access request qid1 cannot be used; skipped until its nodes change'],
    ]);
  });
});
