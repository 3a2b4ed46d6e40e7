import { afterEach, describe, expect, it, vi } from 'vitest';
import { IncompleteJobs } from '../../../src/engine/incomplete-jobs.js';

const until = async (ok: () => boolean): Promise<void> => {
  const deadline = Date.now() + 10_000;
  while (!ok()) {
    if (Date.now() > deadline) throw new Error('condition not met within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

describe('IncompleteJobs: a job missing a node is failed once it has stayed so for the grace period', () => {
  it('hands a job to fail once, after the grace, however often it is noted meanwhile', async () => {
    vi.useFakeTimers();
    const failed: [string, string, number][] = [];
    const jobs = new IncompleteJobs(30, (jid, state, waited) => {
      failed.push([jid, state, waited]);
      return Promise.resolve('done');
    });
    jobs.note('jid1', 'pending');
    await vi.advanceTimersByTimeAsync(10);
    jobs.note('jid1', 'pending'); // a sweep, a watch: the clock keeps running from the first
    await vi.advanceTimersByTimeAsync(20);
    expect(failed).toEqual([['jid1', 'pending', 30]]);
    expect(jobs.size).toBe(0);
  });

  it('forgets a job that became usable in time, and turns off with a grace of 0', async () => {
    const failed: string[] = [];
    const fail = (jid: string) => (failed.push(jid), Promise.resolve('done' as const));
    const jobs = new IncompleteJobs(30, fail);
    jobs.note('jid1', 'pending');
    jobs.clear('jid1');
    const off = new IncompleteJobs(0, fail);
    off.note('jid2', 'pending');
    expect(off.size).toBe(0);
    jobs.note('jid3', 'pending');
    await until(() => failed.length === 1);
    expect(failed).toEqual(['jid3']);
  });

  // Fake timers: on a real clock a timer may fire a millisecond before Date.now() says its delay
  // has passed, so two graces of 20 ms measured 39 on a busy CI machine.
  afterEach(() => {
    vi.useRealTimers();
  });

  it('tries again after another grace when ZooKeeper could not be asked, counting from the first sighting', async () => {
    vi.useFakeTimers();
    const waits: number[] = [];
    const jobs = new IncompleteJobs(20, (_jid, _state, waited) => {
      waits.push(waited);
      return Promise.resolve(waits.length === 1 ? 'retry' : 'done');
    });
    jobs.note('jid1', 'downloading');
    await vi.advanceTimersByTimeAsync(19);
    expect(waits).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(waits).toEqual([20]);
    await vi.advanceTimersByTimeAsync(20);
    expect(waits).toEqual([20, 40]);
    expect(jobs.size).toBe(0);
    jobs.stop();
  });
});
