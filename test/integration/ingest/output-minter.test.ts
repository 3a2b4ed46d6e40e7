import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createLocalMinter } from '../../../src/steps/services/minter/local.js';
import { createMinter } from '../../../src/steps/adapters.js';

const MINTER = join(import.meta.dirname, '..', '..', '..', 'src', 'steps', 'services', 'minter', 'local.js');
const signal = new AbortController().signal;
const ARK = /^ark:\/99999\/fk4[0-9bcdfghjkmnpqrstvwxz]{10}$/;

/** Mints `count` ids in a separate Node process sharing `dataDir`. */
function mintInProcess(dataDir: string, count: number): Promise<string[]> {
  const script = `
    import { createLocalMinter } from ${JSON.stringify(MINTER)};
    const minter = createLocalMinter(process.argv[1]);
    const ids = [];
    for (let i = 0; i < ${count}; i++) ids.push(await minter.mint(new AbortController().signal));
    process.stdout.write(JSON.stringify(ids));`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, dataDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    // 'close', not 'exit': only then has all of stdout been read.
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as string[]) : reject(new Error(err))));
  });
}

describe('the local minter', () => {
  let dataDir: string;
  beforeEach(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'mrtq-minter-'));
  });
  afterEach(() => rm(dataDir, { recursive: true, force: true }));

  it('mints well-formed arks that never repeat', async () => {
    const minter = createMinter({ dataDir, minter: { kind: 'local' } });
    const ids = await Promise.all(Array.from({ length: 1000 }, () => minter.mint(signal)));
    expect(new Set(ids).size).toBe(1000);
    for (const id of ids) expect(id).toMatch(ARK);
  });

  it('two processes sharing the data directory, then a restart, never mint the same ark', async () => {
    const [a, b] = await Promise.all([mintInProcess(dataDir, 400), mintInProcess(dataDir, 400)]);
    const restarted = await mintInProcess(dataDir, 200);
    const all = [...a, ...b, ...restarted];
    expect(all).toHaveLength(1000);
    expect(new Set(all).size).toBe(1000);
  });

  it('a name claimed by another instance or before a restart is never handed out again', async () => {
    // Force collisions: both instances draw the same names; only the first claim of each wins.
    const sequence = () => {
      const names = ['aaaaaaaaaa', 'bbbbbbbbbb', 'cccccccccc'];
      return () => names.shift() ?? 'dddddddddd';
    };
    const first = createLocalMinter(dataDir, { draw: sequence() });
    expect(await first.mint(signal)).toBe('ark:/99999/fk4aaaaaaaaaa');
    const second = createLocalMinter(dataDir, { draw: sequence() });
    expect(await second.mint(signal)).toBe('ark:/99999/fk4bbbbbbbbbb');
    const restarted = createLocalMinter(dataDir, { draw: sequence() });
    expect(await restarted.mint(signal)).toBe('ark:/99999/fk4cccccccccc');
    const stuck = createLocalMinter(dataDir, { draw: () => 'aaaaaaaaaa' });
    await expect(stuck.mint(signal)).rejects.toThrow(/found no free id/);
  });

  it('honours an aborted signal', async () => {
    const aborted = AbortSignal.abort(new Error('stop'));
    await expect(createLocalMinter(dataDir).mint(aborted)).rejects.toThrow('stop');
  });
});
