import { describe, expect, it } from 'vitest';
import { ReadBatch } from '../../../src/zk/read-batch.js';

/** A send that answers each path with itself, recording the requests it was given. */
function echo(): { sent: string[][]; send: (paths: readonly string[]) => Promise<string[]> } {
  const sent: string[][] = [];
  return { sent, send: (paths) => (sent.push([...paths]), Promise.resolve(paths.map((p) => `=${p}`))) };
}

describe('ReadBatch', () => {
  it('merges the reads of one turn into one request and answers each caller its own slice', async () => {
    const { sent, send } = echo();
    const batch = new ReadBatch(send);
    const answers = await Promise.all([
      batch.read(['a', 'b']),
      batch.read(['c']),
      batch.read(['d', 'e', 'f']),
    ]);
    expect(sent).toEqual([['a', 'b', 'c', 'd', 'e', 'f']]);
    expect(answers).toEqual([['=a', '=b'], ['=c'], ['=d', '=e', '=f']]);
    expect({ requests: batch.requests, callers: batch.callers }).toEqual({ requests: 1, callers: 3 });
  });

  it('reads of a later turn go in a later request', async () => {
    const { sent, send } = echo();
    const batch = new ReadBatch(send);
    await batch.read(['a']);
    await batch.read(['b']);
    expect(sent).toEqual([['a'], ['b']]);
  });

  it('splits a turn at the path and byte limits; a caller over them alone goes alone', async () => {
    const { sent, send } = echo();
    const batch = new ReadBatch(send, { paths: 3, bytes: 1000 });
    const big = ['p1', 'p2', 'p3', 'p4'];
    const answers = await Promise.all([
      batch.read(['a', 'b']),
      batch.read(['c']),
      batch.read(['d', 'e']),
      batch.read(big),
      batch.read(['f']),
    ]);
    expect(sent).toEqual([['a', 'b', 'c'], ['d', 'e'], big, ['f']]);
    expect(answers[3]).toEqual(big.map((p) => `=${p}`));

    const bytes = echo();
    const byBytes = new ReadBatch(bytes.send, { paths: 100, bytes: 30 });
    await Promise.all([byBytes.read(['x'.repeat(10)]), byBytes.read(['y'.repeat(10)])]);
    expect(bytes.sent).toHaveLength(2);
  });

  it("a request's failure rejects every caller in it, and only them", async () => {
    let calls = 0;
    const batch = new ReadBatch<string>((paths) =>
      ++calls === 1 ? Promise.reject(new Error('connection lost')) : Promise.resolve(paths.map(String)),
    );
    const first = Promise.allSettled([batch.read(['a']), batch.read(['b'])]);
    expect((await first).map((r) => r.status)).toEqual(['rejected', 'rejected']);
    expect(await batch.read(['c'])).toEqual(['c']);
  });

  it('a server without multiRead (null) answers every caller null', async () => {
    const batch = new ReadBatch<string>(() => Promise.resolve(null));
    expect(await Promise.all([batch.read(['a']), batch.read(['b'])])).toEqual([null, null]);
  });
});
