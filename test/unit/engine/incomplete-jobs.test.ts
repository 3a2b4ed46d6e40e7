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

  it('tries again soon, not after another grace, when the job could not be failed at its deadline (locked for a moment, ZooKeeper away), counting from the first sighting', async () => {
    vi.useFakeTimers();
    const waits: number[] = [];
    const outcomes = ['retry', 'retry', 'error', 'done'] as const;
    const jobs = new IncompleteJobs(2000, (_jid, _state, waited) => {
      const outcome = outcomes[waits.length];
      waits.push(waited);
      return outcome === 'error' ? Promise.reject(new Error('connection loss')) : Promise.resolve(outcome!);
    });
    jobs.note('jid1', 'downloading');
    await vi.advanceTimersByTimeAsync(1999);
    expect(waits).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(waits).toEqual([2000]);
    // A twentieth of the grace, doubling: the wait ends within 10 % of its limit once the lock is free.
    await vi.advanceTimersByTimeAsync(100 + 200 + 400);
    expect(waits).toEqual([2000, 2100, 2300, 2700]);
    expect(jobs.size).toBe(0);
    jobs.stop();
  });

  it('stops retrying a job cleared meanwhile (it became usable, or was taken)', async () => {
    vi.useFakeTimers();
    let calls = 0;
    const jobs = new IncompleteJobs(2000, () => (calls++, Promise.resolve('retry' as const)));
    jobs.note('jid1', 'downloading');
    await vi.advanceTimersByTimeAsync(2000);
    expect(calls).toBe(1);
    jobs.clear('jid1');
    await vi.advanceTimersByTimeAsync(10_000);
    expect(calls).toBe(1);
    expect(jobs.size).toBe(0);
  });
});
