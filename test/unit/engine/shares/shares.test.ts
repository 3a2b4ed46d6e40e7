import { describe, expect, it } from 'vitest';
import { Shares } from '../../../../src/engine/shares/shares.js';
import type { JobListing } from '../../../../src/streams/queue-events.js';
import type { ZkClient } from '../../../../src/zk/index.js';

/**
 * The count a cap is held against, with the jobs' keys read from a stand-in for ZooKeeper (each
 * job's configuration names its collection by the jid: `jid1…` capped, `jid2…` free).
 */
const zk = {
  getDataMany: (paths: readonly string[]) =>
    Promise.resolve(
      paths.map((path) => {
        const jid = /\/jobs\/(jid\w+)\//.exec(path)?.[1] ?? '';
        return {
          data: Buffer.from(JSON.stringify({ collection: jid.startsWith('jid1') ? 'capped' : 'free' })),
        };
      }),
    ),
} as unknown as ZkClient;

const ref = (jid: string) => `05-${jid}`;
const listing = (...jids: string[]): JobListing => ({ refs: jids.map(ref), readAt: performance.now() });
const settle = () => new Promise((resolve) => setTimeout(resolve, 10));

function sharesWith(held: Set<string>) {
  const offers: string[][] = [];
  const shares = new Shares(
    zk,
    (l) => offers.push(l.refs.map((r) => r.slice(3))),
    () => held,
  );
  shares.setPolicy({ caps: { capped: 3 } });
  return { shares, offers, last: () => offers.at(-1) ?? [] };
}

const cappedIn = (jids: readonly string[]) => jids.filter((jid) => jid.startsWith('jid1')).length;

describe('Shares (a cap)', () => {
  it('offers at most the cap of a capped key, the others in full', async () => {
    const { shares, last } = sharesWith(new Set());
    shares.listed(listing('jid101', 'jid102', 'jid103', 'jid104', 'jid201', 'jid202'));
    await settle();
    expect(cappedIn(last())).toBe(3);
    expect(last()).toEqual(expect.arrayContaining(['jid201', 'jid202']));
  });

  it("counts a job at work from the intake's claim, before it is taken and whatever the folders' reads say", async () => {
    const held = new Set<string>();
    const { shares, last } = sharesWith(held);
    shares.listed(listing('jid101', 'jid102', 'jid103', 'jid104', 'jid105', 'jid201'));
    await settle();
    // The intake claims the three it was offered; their commits move them out of the waiting
    // folder before `taken` is told, and the working folders were read before they came there.
    for (const jid of ['jid101', 'jid102', 'jid103']) held.add(jid);
    shares.working('estimating', []);
    shares.listed(listing('jid104', 'jid105', 'jid201'));
    await settle();
    expect(cappedIn(last())).toBe(0);
    expect(last()).toEqual(['jid201']);
  });

  it('does not offer a job the intake holds again, nor count it twice', async () => {
    const held = new Set(['jid101']);
    const { shares, last } = sharesWith(held);
    // The waiting folder's read still names the job the intake is taking in.
    shares.listed(listing('jid101', 'jid102', 'jid103', 'jid104'));
    await settle();
    expect(last()).toEqual(['jid102', 'jid103']);
    // Taken (its commit done) and read in its working folder: still one job.
    shares.taken('jid101', { collection: 'capped' });
    shares.working('estimating', [ref('jid101')]);
    await settle();
    expect(last()).toEqual(['jid102', 'jid103']);
  });

  it('frees the place when the job leaves, once no folder read names it', async () => {
    const held = new Set<string>();
    const { shares, last } = sharesWith(held);
    shares.listed(listing('jid101', 'jid102', 'jid103', 'jid104'));
    await settle();
    for (const jid of ['jid101', 'jid102', 'jid103']) {
      held.add(jid);
      shares.taken(jid, { collection: 'capped' });
    }
    shares.listed(listing('jid104'));
    await settle();
    expect(last()).toEqual([]);
    // jid101 finished: no longer held, but the working folder as last read still names it.
    held.delete('jid101');
    shares.working('notify', [ref('jid101')]);
    shares.left('jid101');
    await settle();
    expect(last()).toEqual([]);
    shares.working('notify', []);
    await settle();
    expect(last()).toEqual(['jid104']);
  });
});
