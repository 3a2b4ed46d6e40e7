import { beforeAll, describe, expect, it } from 'vitest';
import { ZkError, type ZkClient } from '../../../src/zk/index.js';
import { requestsDuring } from '../../support/requests.js';
import { useZkChroot } from '../../support/zk-chroot.js';

const chroot = useZkChroot();
let zk: ZkClient;

beforeAll(async () => {
  zk = await chroot.connect();
});

describe('getDataMany (one multiRead request)', () => {
  it('reads every node in order, with the same data and stat as getData, missing ones as undefined', async () => {
    await zk.mkdirp('/m/job');
    await zk.create('/m/job/status', '{"status":"pending"}');
    await zk.setData('/m/job/status', '{"status":"estimating"}');
    await zk.create('/m/job/empty');
    await zk.create('/m/job/bytes', Buffer.from([0, 1, 2, 255]));

    const paths = ['/m/job/status', '/m/job/absent', '/m/job/empty', '/m/job/bytes', '/m/gone/deeper'];
    const many = await zk.getDataMany(paths);

    expect(many).toHaveLength(5);
    expect(many[0]?.data?.toString()).toBe('{"status":"estimating"}');
    expect(many[0]?.stat.version).toBe(1);
    expect(many[1]).toBeUndefined();
    expect(many[4]).toBeUndefined();
    expect(many[3]?.data).toEqual(Buffer.from([0, 1, 2, 255]));
    // Exactly what getData answers for each existing node, stat included.
    for (const index of [0, 2, 3]) expect(many[index]).toEqual(await zk.getData(paths[index]!));
  });

  it('counts as one request, and an empty list sends none', async () => {
    await zk.mkdirp('/count');
    const paths = Array.from({ length: 8 }, (_, i) => `/count/n${i}`);
    for (const path of paths) await zk.create(path, path);
    const { value: many, sent } = await requestsDuring(zk, async () => {
      const read = await zk.getDataMany(paths);
      expect(await zk.getDataMany([])).toEqual([]);
      return read;
    });
    expect(many.map((node) => node?.data?.toString())).toEqual(paths);
    expect(sent).toEqual(['multiRead']);
  });

  it('a read the server refuses (NO_AUTH) rejects the call, naming that node', async () => {
    const owner = await chroot.connect({
      auth: { scheme: 'digest', credentials: 'bob:secret' },
      acl: 'creator',
    });
    await owner.create('/private', 'for bob only');
    await zk.create('/public', 'anyone');

    const failure = await zk.getDataMany(['/public', '/private']).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeInstanceOf(ZkError);
    expect(failure).toMatchObject({ code: 'ZK_NO_AUTH', path: '/private' });
    // The session is still usable afterwards.
    expect((await zk.getDataMany(['/public']))[0]?.data?.toString()).toBe('anyone');
  });

  it('refuses a bad path before sending anything', async () => {
    await expect(zk.getDataMany(['/ok', 'relative'])).rejects.toMatchObject({ code: 'ZK_BAD_ARGUMENTS' });
  });

  it('calls made in one turn go as one request, each answered with its own nodes', async () => {
    await zk.mkdirp('/merge');
    const jobs = Array.from({ length: 6 }, (_, i) => `/merge/j${i}`);
    for (const job of jobs) {
      await zk.mkdirp(job);
      await zk.create(`${job}/status`, `${job} status`);
    }
    const before = zk.readMerges;
    const { value: reads, sent } = await requestsDuring(zk, () =>
      Promise.all(jobs.map((job) => zk.getDataMany([`${job}/status`, `${job}/absent`]))),
    );
    expect(sent).toEqual(['multiRead']);
    expect(zk.readMerges.callers - before.callers).toBe(jobs.length);
    reads.forEach((read, i) => {
      expect(read).toHaveLength(2);
      expect(read[0]?.data?.toString()).toBe(`${jobs[i]} status`);
      expect(read[1]).toBeUndefined();
    });
  });

  it("one caller's refused read (NO_AUTH) or bad path fails that caller alone, not those merged with it", async () => {
    const owner = await chroot.connect({
      auth: { scheme: 'digest', credentials: 'eve:secret' },
      acl: 'creator',
    });
    await owner.create('/secret', 'for eve only');
    await zk.create('/open', 'anyone');

    const [refused, bad, fine] = await Promise.allSettled([
      zk.getDataMany(['/open', '/secret']),
      zk.getDataMany(['relative']),
      zk.getDataMany(['/open', '/nowhere']),
    ]);
    expect(refused).toMatchObject({ status: 'rejected', reason: { code: 'ZK_NO_AUTH', path: '/secret' } });
    expect(bad).toMatchObject({ status: 'rejected', reason: { code: 'ZK_BAD_ARGUMENTS' } });
    expect(fine.status).toBe('fulfilled');
    if (fine.status === 'fulfilled') {
      expect(fine.value[0]?.data?.toString()).toBe('anyone');
      expect(fine.value[1]).toBeUndefined();
    }
  });
});
