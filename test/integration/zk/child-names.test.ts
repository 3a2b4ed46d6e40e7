import { setImmediate as nextTurn } from 'node:timers/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { isZkError, type Op, type ZkClient } from '../../../src/zk/index.js';
import { useZkChroot } from '../../support/zk-chroot.js';
import { eventually } from '../../support/eventually.js';

const chroot = useZkChroot();
let zk: ZkClient;

/** Creates `names` under `folder`, a thousand to a request. */
async function createChildren(folder: string, names: readonly string[]): Promise<void> {
  await zk.mkdirp(folder);
  for (let i = 0; i < names.length; i += 1000) {
    const ops: Op[] = names.slice(i, i + 1000).map((name) => ({ op: 'create', path: `${folder}/${name}` }));
    await zk.multi(ops);
  }
}

// Long names and a few non-ASCII ones: the reply (about 300 KB) spans several socket chunks.
const NAMES = [
  ...Array.from({ length: 6000 }, (_, i) => `05-jid${String(i).padStart(10, '0')}-${'x'.repeat(20)}`),
  'é-accent',
  'ünïcödé-名前',
  'a',
];

beforeAll(async () => {
  zk = await chroot.connect();
  await createChildren('/big', NAMES);
}, 120_000);

describe('getChildNames: a folder walked a slice at a time (big folders never decoded in one turn)', () => {
  it('walks exactly the names getChildren lists, with the folder stat, through a chrooted client', async () => {
    const names = await zk.getChildNames('/big');
    const stat = await zk.exists('/big');
    expect(names.count).toBe(NAMES.length);
    expect(names.stat).toEqual(stat);
    const walked = await names.toArray();
    expect([...walked].sort()).toEqual([...NAMES].sort());
    expect([...walked].sort()).toEqual((await zk.getChildren('/big')).sort());
  });

  it('lets other work run between two slices', async () => {
    const names = await zk.getChildNames('/big');
    let turns = 0;
    let seenBeforeEnd = 0;
    const ticking = (async () => {
      for (let i = 0; i < 10; i++) {
        await nextTurn();
        turns += 1;
      }
    })();
    let visited = 0;
    await names.each(() => {
      visited += 1;
      if (visited === names.count) seenBeforeEnd = turns;
    }, 500);
    await ticking;
    expect(visited).toBe(NAMES.length);
    // Twelve slices of 500: the other task ran in between, not only once the walk was over.
    expect(seenBeforeEnd).toBeGreaterThan(0);
  });

  it('answers the requests pipelined behind a long reply, each with its own answer', async () => {
    await zk.mkdirp('/small');
    await Promise.all(Array.from({ length: 20 }, (_, i) => zk.create(`/small/n${i}`, `v${i}`)));
    const [big, ...small] = await Promise.all([
      zk.getChildNames('/big'),
      ...Array.from({ length: 20 }, (_, i) => zk.getData(`/small/n${i}`)),
    ]);
    expect(big.count).toBe(NAMES.length);
    expect(small.map((node) => node.data?.toString())).toEqual(Array.from({ length: 20 }, (_, i) => `v${i}`));
  });

  it('an empty folder has no names; a missing one is NO_NODE', async () => {
    await zk.mkdirp('/empty');
    const empty = await zk.getChildNames('/empty');
    expect(empty.count).toBe(0);
    expect(await empty.toArray()).toEqual([]);
    const missing = await zk.getChildNames('/nowhere').catch((err: unknown) => err);
    expect(isZkError(missing, 'NO_NODE')).toBe(true);
  });

  it('its watch fires once when a child is added', async () => {
    await zk.mkdirp('/watched');
    let fired = 0;
    const names = await zk.getChildNames('/watched', () => (fired += 1));
    expect(names.count).toBe(0);
    await zk.create('/watched/new');
    await eventually(
      () => fired,
      (count) => count === 1,
    );
    await zk.create('/watched/another');
    expect((await zk.getChildNames('/watched')).count).toBe(2);
    expect(fired).toBe(1);
  });
});
