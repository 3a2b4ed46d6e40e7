import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../src/logger.js';

/**
 * The keys written more than once in one object of a JSON text, at any depth. JSON.parse keeps
 * the last of them silently, so the raw text is read here.
 */
function duplicateKeys(text: string): string[] {
  const found: string[] = [];
  let at = 0;
  const space = () => {
    while (/\s/.test(text[at] ?? '')) at++;
  };
  const string = (): string => {
    const start = at;
    at++;
    while (text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
    at++;
    return JSON.parse(text.slice(start, at)) as string;
  };
  const value = (): void => {
    space();
    const c = text[at];
    if (c === '{') {
      at++;
      const keys = new Set<string>();
      space();
      while (text[at] !== '}') {
        space();
        const key = string();
        if (keys.has(key)) found.push(key);
        keys.add(key);
        space();
        at++; // ':'
        value();
        space();
        if (text[at] === ',') at++;
        space();
      }
      at++;
    } else if (c === '[') {
      at++;
      space();
      while (text[at] !== ']') {
        value();
        space();
        if (text[at] === ',') at++;
      }
      at++;
    } else if (c === '"') string();
    else while (at < text.length && !/[,}\]\s]/.test(text[at]!)) at++;
  };
  value();
  return found;
}

function capture() {
  const lines: string[] = [];
  return { lines, destination: { write: (line: string) => void lines.push(line) } };
}

describe('JSON log lines carry each key once', () => {
  it('the check finds the duplicate keys pino writes on its own', () => {
    const { lines, destination } = capture();
    pino({}, destination).child({ component: 'engine', jobId: 'jid1' }).info({ jobId: 'jid1' }, 'plain pino');
    expect(duplicateKeys(lines[0]!)).toEqual(['jobId']);
    expect(duplicateKeys('{"a":{"b":1,"b":2},"c":[{"d":1,"d":1}]}')).toEqual(['b', 'd']);
  });

  it('children and calls that repeat a key write it once, the most specific value kept', () => {
    const { lines, destination } = capture();
    const root = createLogger({ level: 'info', destination });
    const engine = root.child({ component: 'engine' });
    const job = engine.child({ jobId: 'jid7', batchId: 'bid1', state: 'Pending' });
    job.info({ jobId: 'jid7', spaceNeeded: 3 }, 'estimated'); // a step repeats its job's id
    job.warn({ state: 'Estimating' }, 'moved on'); // another value: the call's
    engine.child({ component: 'http' }).info('listening'); // a child renames its component
    job.child({ component: 'steps' }).child({ jobId: 'jid8' }).info({ batchId: 'bid2' }, 'deep');
    root.info({ pid: process.pid, hostname: 'elsewhere' }, 'service running'); // pino's own keys
    job.info({ msg: 'a field named msg', level: 'x', time: 0 }, 'a message');
    job.error({ err: new Error('boom'), component: 'engine' }, 'failed');

    expect(lines).toHaveLength(7);
    for (const line of lines) expect(duplicateKeys(line), line).toEqual([]);
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(parsed[0]).toMatchObject({ component: 'engine', jobId: 'jid7', spaceNeeded: 3, msg: 'estimated' });
    expect(parsed[1]).toMatchObject({ state: 'Estimating', jobId: 'jid7', level: 40 });
    expect(parsed[2]).toMatchObject({ component: 'http', msg: 'listening' });
    expect(parsed[3]).toMatchObject({ component: 'steps', jobId: 'jid8', batchId: 'bid2', msg: 'deep' });
    expect(parsed[4]).toMatchObject({ pid: process.pid, msg: 'service running' });
    expect(parsed[4]!.hostname).not.toBe(undefined);
    expect(parsed[5]).toMatchObject({ msg: 'a message', msg_: 'a field named msg', level: 30, level_: 'x' });
    expect(parsed[6]).toMatchObject({ component: 'engine', level: 50, err: { message: 'boom' } });
  });

  it('a line without repeated keys is written as pino writes it', () => {
    const { lines, destination } = capture();
    createLogger({ level: 'info', destination }).child({ component: 'queue' }).info({ n: 1 }, 'plain');
    const {
      time: _time,
      pid: _pid,
      hostname: _host,
      ...rest
    } = JSON.parse(lines[0]!) as Record<string, unknown>;
    expect(rest).toEqual({ level: 30, component: 'queue', n: 1, msg: 'plain' });
  });

  it('is JSON off a terminal and human-readable when asked (LOG_PRETTY=true)', () => {
    const json = capture();
    createLogger({ level: 'info', destination: json.destination }).info('hello');
    expect(() => JSON.parse(json.lines[0]!) as unknown).not.toThrow();
    const human: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        human.push(chunk.toString());
        done();
      },
    });
    createLogger({ level: 'info', pretty: true, destination: sink }).info({ jobId: 'j' }, 'hello');
    expect(human.join('')).toMatch(/INFO.*hello/);
    expect(() => JSON.parse(human.join('')) as unknown).toThrow();
  });
});
