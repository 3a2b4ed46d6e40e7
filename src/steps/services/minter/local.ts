import { randomInt } from 'node:crypto';
import { open } from '../../fs/calls.js';
import { join } from 'node:path';
import { OutputError } from '../../output-errors.js';
import { withDirectory } from '../../workdir/files.js';
import type { Minter } from './port.js';
import { registerLocalRoot } from '../../fs/local-roots.js';

/** EZID's test shoulder: what the local minter mints under (never a resolvable ark). */
export const LOCAL_SHOULDER = 'ark:/99999/fk4';

/** NOID's "betanumeric" alphabet: digits and consonants but `l`, so no id spells a word or reads as `1`. */
const BETANUMERIC = '0123456789bcdfghjkmnpqrstvwxz';
const ID_LENGTH = 10;
const MAX_ATTEMPTS = 20;

function randomName(): string {
  let name = '';
  for (let i = 0; i < ID_LENGTH; i += 1) name += BETANUMERIC[randomInt(BETANUMERIC.length)];
  return name;
}

/**
 * The local minter: `ark:/99999/fk4<10 betanumeric chars>`. Uniqueness does not depend on a
 * counter or a lock: each candidate is claimed by creating `<dataDir>/minter/<xx>/<name>` with
 * O_EXCL, which the file system grants to exactly one caller, whatever process or restart it
 * comes from. A taken name (29^10 ≈ 4·10^14 of them, so practically never) is drawn again. No
 * stale lock can block it after a crash, and no id is handed out before its claim is on disk.
 * `draw` replaces the random names (tests force collisions with it).
 */
export function createLocalMinter(dataDir: string, options: { draw?: () => string } = {}): Minter {
  const root = join(dataDir, 'minter');
  void registerLocalRoot(root);
  const draw = options.draw ?? randomName;
  return {
    async mint(signal: AbortSignal): Promise<string> {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
        signal.throwIfAborted();
        const name = draw();
        const shard = join(root, name.slice(0, 2));
        try {
          // The shard is made when the claim finds it missing (once for each of its 841).
          const handle = await withDirectory(shard, () => open(join(shard, name), 'wx'));
          await handle.close();
          return `${LOCAL_SHOULDER}${name}`;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
        }
      }
      throw new OutputError(
        'MINT_FAILED',
        `local minter under ${root} found no free id in ${MAX_ATTEMPTS} draws`,
      );
    },
  };
}
