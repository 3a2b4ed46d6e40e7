import { randomInt } from 'node:crypto';
import { mkdir, open } from 'node:fs/promises';
import { join } from 'node:path';
import type { Erc, IngestSettings, Profile } from './contracts.js';
import { createEzidMinter } from './minter-ezid.js';
import { OutputError } from './output-errors.js';

/** What a minter may tell EZID about the object (merritt-protocols.md §3). */
export interface MintRequest {
  /** The job's profile: `Identifier-scheme`, `ObjectMinterURL`, `Context`, `EZID_co-owner`, `Aggregate`. */
  profile?: Profile;
  erc: Erc;
  localIds: string[];
  /** The submission asked EZID to keep the object's target URL. */
  retainTargetUrl?: boolean;
}

/** Mints a new, never-used ark for an object. */
export interface Minter {
  mint(signal: AbortSignal, request?: MintRequest): Promise<string>;
  /**
   * Tells the minter the object's metadata once its ark is known (minted, given or found): EZID's
   * update call. Minters that keep no metadata (the local one) have none.
   */
  update?(ark: string, request: MintRequest, signal: AbortSignal): Promise<void>;
}

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
  const draw = options.draw ?? randomName;
  return {
    async mint(signal: AbortSignal): Promise<string> {
      for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt += 1) {
        signal.throwIfAborted();
        const name = draw();
        const shard = join(root, name.slice(0, 2));
        await mkdir(shard, { recursive: true });
        try {
          const handle = await open(join(shard, name), 'wx');
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

export { parseMintAnswer } from './minter-ezid.js';

/** What choosing a job's minter needs from the settings. */
export type MinterSettings = Pick<IngestSettings, 'dataDir' | 'minter'> &
  Partial<Pick<IngestSettings, 'deployment' | 'ezid'>>;

/**
 * Merritt no longer mints DOIs (`HandlerMinter`); only ARK (or no scheme: the engine's own
 * profiles) may be minted.
 */
function assertMintableScheme(profile: Profile | undefined): void {
  const scheme = profile?.identifierScheme?.trim();
  if (scheme === undefined || scheme === '' || scheme.toUpperCase() === 'ARK') return;
  const why =
    scheme.toUpperCase() === 'DOI'
      ? `Merritt no longer supports DOI minting (profile ${profile?.name} has Identifier-scheme: DOI)`
      : `unsupported Identifier-scheme "${scheme}" in profile ${profile?.name}; only ARK can be minted`;
  throw new OutputError(
    'MINT_FAILED',
    `${why}; set Identifier-scheme: ARK, or submit the object with its primary identifier`,
  );
}

/**
 * The minter of each job (docs/ingest.md, "Minter and local ids"): the EZID client at
 * MRTQ_MINTER_URL when it is set; else, in a `merritt` deployment, the EZID client at the
 * profile's ObjectMinterURL; else the local minter under `dataDir`. DOI profiles are refused
 * before anything is minted.
 */
export function createMinter(settings: MinterSettings): Minter {
  const local = createLocalMinter(settings.dataDir);
  const clients = new Map<string, Minter>();
  const ezid = (url: string, timeoutMs?: number): Minter => {
    let client = clients.get(url);
    if (!client) {
      client = createEzidMinter({ ...settings.ezid, ...(timeoutMs ? { timeoutMs } : {}), url });
      clients.set(url, client);
    }
    return client;
  };
  const minterFor = (profile: Profile | undefined): Minter => {
    if (settings.minter.kind === 'http') return ezid(settings.minter.url, settings.minter.timeoutMs);
    if (settings.deployment === 'merritt' && profile?.minterUrl) return ezid(profile.minterUrl);
    return local;
  };
  return {
    async mint(signal, request) {
      assertMintableScheme(request?.profile);
      return minterFor(request?.profile).mint(signal, request);
    },
    async update(ark, request, signal) {
      await minterFor(request.profile).update?.(ark, request, signal);
    },
  };
}
