import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import { assemble } from '../../../src/steps/access/assembly.js';
import { isOutputError } from '../../../src/steps/output-errors.js';
import { createStorage } from '../../../src/steps/adapters.js';
import { prepareWorkDir } from './output-fixtures.js';

const signal = new AbortController().signal;
const ARK = 'ark:/99999/fk4access';
const TOP = 'ark__99999_fk4access';

interface ZipEntryRead {
  name: string;
  method: number;
  data: string;
}

/** Every entry of a zip: name, compression method, content. */
async function readZip(path: string): Promise<ZipEntryRead[]> {
  const zip = await yauzl.openPromise(path, { lazyEntries: true });
  const entries: ZipEntryRead[] = [];
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) => {
      void zip
        .openReadStreamPromise(entry)
        .then(async (stream) => {
          const chunks: Buffer[] = [];
          for await (const chunk of stream) chunks.push(chunk as Buffer);
          entries.push({
            name: entry.fileName,
            method: entry.compressionMethod,
            data: Buffer.concat(chunks).toString(),
          });
          zip.readEntry();
        })
        .catch(reject);
    });
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  zip.close();
  return entries.sort((a, b) => a.name.localeCompare(b.name));
}

describe('access assembly', () => {
  let root: string;
  let dataDir: string;

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'mrtq-access-'));
    dataDir = join(root, 'data');
    const storage = createStorage({ dataDir, workRoot: join(root, 'work'), storage: { kind: 'local' } });
    const v1 = join(root, 'work', 'b', 'j1');
    const v2 = join(root, 'work', 'b', 'j2');
    const long = 'compressible '.repeat(1000);
    const files1 = (await prepareWorkDir(v1, { 'a.txt': 'first', 'dir/long.txt': long })).files;
    const files2 = (await prepareWorkDir(v2, { 'a.txt': 'second', 'dir/long.txt': long })).files;
    await storage.store({ ark: ARK, workDir: v1, files: files1, signal });
    await storage.store({ ark: ARK, workDir: v2, files: files2, signal });
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  it('zips the latest stored version with its manifest, compressed for the small queue', async () => {
    const result = await assemble({ ark: ARK, queue: 'small', qid: 'qid0000000001' }, { dataDir });
    const path = fileURLToPath(result.url);
    expect(path).toBe(join(dataDir, 'access', 'small-qid0000000001.zip'));
    expect(result).toMatchObject({ version: 2, size: (await stat(path)).size });
    const entries = await readZip(path);
    expect(entries.map((e) => e.name)).toEqual([
      `${TOP}/manifest.checkm`,
      `${TOP}/producer/a.txt`,
      `${TOP}/producer/dir/long.txt`,
    ]);
    expect(entries[1]!.data).toBe('second');
    expect(entries[2]!.data).toBe('compressible '.repeat(1000));
    expect(entries[2]!.method).toBe(8);
    expect(entries[0]!.data).toContain('| producer/a.txt |');
  });

  it('zips an older version on request, stored uncompressed for the large queue, replacing an earlier zip', async () => {
    await assemble({ ark: ARK, queue: 'small', qid: 'qid0000000002' }, { dataDir });
    const result = await assemble(
      { ark: ARK, version: 1, queue: 'large', qid: 'qid0000000002' },
      { dataDir },
    );
    const entries = await readZip(fileURLToPath(result.url));
    expect(result.version).toBe(1);
    expect(entries.find((e) => e.name.endsWith('a.txt'))!.data).toBe('first');
    expect(entries.every((e) => e.method === 0)).toBe(true);
  });

  it('refuses an object or a version the store does not hold', async () => {
    const unknown: unknown = await assemble(
      { ark: 'ark:/99999/fk4nothere', queue: 'small', qid: 'qid3' },
      { dataDir },
    ).catch((e: unknown) => e);
    expect(isOutputError(unknown, 'OBJECT_NOT_FOUND')).toBe(true);
    expect((unknown as Error).message).toBe('the store holds no object ark:/99999/fk4nothere');
    await expect(
      assemble({ ark: ARK, version: 7, queue: 'small', qid: 'qid3' }, { dataDir }),
    ).rejects.toThrow(`${ARK} has no version 7 (stored: v1, v2)`);
    await expect(assemble({ ark: ARK, queue: 'small', qid: '../escape' }, { dataDir })).rejects.toThrow(
      /cannot name a file/,
    );
  });
});
