import { describe, expect, it } from 'vitest';
import {
  formatWait,
  provisionOutcome,
  spaceOf,
  type ProvisionRule,
  type SpaceStats,
} from '../../../src/steps/workdir/space.js';

const GiB = 1024 ** 3;
const HOUR = 3_600_000;
const rule: ProvisionRule = { maxUsedFraction: 0.7, spaceWaitLimitMs: 24 * HOUR };

/**
 * statfs of a file system where much of the free space is not the engine's to write (reserved
 * for the superuser, or held back by the host): df says 23 % used.
 */
const reserved: SpaceStats = { bsize: 4096, blocks: 66_053_021, bfree: 60_115_200, bavail: 20_659_907 };

/** 100 GiB, of which `usedGiB` used and the rest free to anyone. */
const disk = (usedGiB: number): SpaceStats => {
  const blocks = (100 * GiB) / 4096;
  const free = blocks - (usedGiB * GiB) / 4096;
  return { bsize: 4096, blocks, bfree: free, bavail: free };
};

describe('free working space', () => {
  it('counts what an unprivileged user can write (bavail), as df does: reserved blocks are neither used nor free', () => {
    const space = spaceOf(reserved);
    expect(space.used).toBe((66_053_021 - 60_115_200) * 4096);
    expect(space.free).toBe(20_659_907 * 4096);
    expect(space.capacity).toBe(space.used + space.free);
    expect(space.used / space.capacity).toBeCloseTo(0.223, 3);
  });

  it('lets a job in on a disk df calls 23 % used under a 50 % limit (not 69 % "used" counting reserved blocks)', () => {
    const outcome = provisionOutcome(reserved, GiB, { ...rule, maxUsedFraction: 0.5 }, '/work', 0);
    expect(outcome).toEqual({ hasSpace: true });
  });
});

describe('provisioning outcomes', () => {
  it('fails at once an object larger than the most this machine could ever give a job, naming its size and the limit', () => {
    const needed = 900 * 1024 ** 4;
    const outcome = provisionOutcome(disk(10), needed, rule, '/work', 0);
    expect(outcome).toMatchObject({ hasSpace: false, giveUp: true });
    expect(outcome.message).toBe(
      `the object needs 900.0 TiB (${needed} bytes), more than 70.0 GiB (${Math.floor(70 * GiB)} bytes), ` +
        'the most a job may use of the 100.0 GiB writable on /work (70.0%)',
    );
  });

  it('takes a configured largest object instead, also above what the disk holds now', () => {
    const limited = { ...rule, maxObjectBytes: 5 * GiB };
    expect(provisionOutcome(disk(10), 6 * GiB, limited, '/work', 0)).toMatchObject({
      giveUp: true,
      message: `the object needs 6.0 GiB (${6 * GiB} bytes), more than 5.0 GiB (${5 * GiB} bytes), the largest object this machine is configured to take`,
    });
    // Larger than the disk, within the configured limit: it waits (the disk may grow).
    const grown = { ...rule, maxObjectBytes: 500 * GiB };
    expect(provisionOutcome(disk(10), 200 * GiB, grown, '/work', 0)).toMatchObject({ hasSpace: false });
    expect(provisionOutcome(disk(10), 200 * GiB, grown, '/work', 0).giveUp).toBeUndefined();
  });

  it('keeps a job that does not fit yet waiting, saying how long it has waited and when it gives up', () => {
    const outcome = provisionOutcome(disk(60), 20 * GiB, rule, '/work', 3 * HOUR);
    expect(outcome.giveUp).toBeUndefined();
    expect(outcome.message).toBe(
      'waiting 3.0 h so far for working space (gives up after 24.0 h): ' +
        'needs 20.0 GiB, 40.0 GiB free of 100.0 GiB on /work; it would be 80.0% full, the limit is 70.0%',
    );
  });

  it('gives up on a job that has waited as long as allowed, saying how long', () => {
    const outcome = provisionOutcome(disk(60), 20 * GiB, rule, '/work', 25 * HOUR);
    expect(outcome).toMatchObject({ hasSpace: false, giveUp: true });
    expect(outcome.message).toMatch(
      /^gave up after waiting 25\.0 h for working space \(the limit is 24\.0 h\): needs 20\.0 GiB/,
    );
  });

  it('shows waits in the unit that reads best', () => {
    expect([1_234, 45_000, 12 * 60_000, 3.5 * HOUR, 48 * HOUR].map(formatWait)).toEqual([
      '1.2 s',
      '45 s',
      '12 min',
      '3.5 h',
      '2.0 d',
    ]);
  });
});
