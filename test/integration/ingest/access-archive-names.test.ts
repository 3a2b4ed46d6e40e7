import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { assemble } from '../../../src/steps/access/assembly.js';
import { createStorage } from '../../../src/steps/adapters.js';
import { prepareWorkDir } from './output-fixtures.js';

const signal = new AbortController().signal;
const SMALL_ARK = 'ark:/99999/fk4small';
const LARGE_ARK = 'ark:/99999/fk4large';

/** The names and contents of a zip's entries. */
async function contents(path: string): Promise<Record<string, string>> {
  const zip = await yauzl.openPromise(path, { lazyEntries: true });
  const out: Record<string, string> = {};
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      void zip
        .openReadStreamPromise(entry)
        .then(async (stream) => {
          const chunks: Buffer[] = [];
          for await (const chunk of stream) chunks.push(chunk as Buffer);
          out[entry.fileName] = Buffer.concat(chunks).toString();
          zip.readEntry();
        })
        .catch(reject);
    });
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  zip.close();
  return out;
}

// merritt-protocols.md §7: `/access/small/qid…` and `/access/large/qid…` are sequential nodes of
// two parents, numbered separately: small/qid0000000001 and large/qid0000000001 are two requests.
describe('access archives are named per queue', () => {
  let root: string;
  let dataDir: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'mrtq-access-names-'));
    dataDir = join(root, 'data');
    const storage = createStorage({ dataDir, workRoot: join(root, 'work'), storage: { kind: 'local' } });
    for (const [ark, text, job] of [
      [SMALL_ARK, 'small object', 'j1'],
      [LARGE_ARK, 'large object', 'j2'],
    ] as const) {
      const workDir = join(root, 'work', 'b', job);
      const { files } = await prepareWorkDir(workDir, { 'a.txt': text });
      await storage.store({ ark, workDir, files, signal });
    }
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('small/qid0000000001 and large/qid0000000001 write two archives, each with its own object', async () => {
    const small = await assemble({ ark: SMALL_ARK, queue: 'small', qid: 'qid0000000001' }, { dataDir });
    const large = await assemble({ ark: LARGE_ARK, queue: 'large', qid: 'qid0000000001' }, { dataDir });
    expect(small.url).not.toBe(large.url);
    expect(fileURLToPath(small.url)).toBe(join(dataDir, 'access', 'small-qid0000000001.zip'));
    expect(fileURLToPath(large.url)).toBe(join(dataDir, 'access', 'large-qid0000000001.zip'));
    // The first archive is still the small object's: the second request did not overwrite it.
    expect((await contents(fileURLToPath(small.url)))['ark__99999_fk4small/producer/a.txt']).toBe(
      'small object',
    );
    expect((await contents(fileURLToPath(large.url)))['ark__99999_fk4large/producer/a.txt']).toBe(
      'large object',
    );
    expect((await readdir(join(dataDir, 'access'))).filter((name) => name.endsWith('.zip')).sort()).toEqual([
      'large-qid0000000001.zip',
      'small-qid0000000001.zip',
    ]);
  });
});
