import type { Profile } from './ingest-contracts.js';
import type { IngestSettings } from '../config/ingest-settings.js';
import { OutputError } from './output-errors.js';
import { createHttpInventory } from './services/inventory/http.js';
import { createLocalInventory } from './services/inventory/local.js';
import type { Inventory } from './services/inventory/port.js';
import { createEzidMinter } from './services/minter/ezid.js';
import { createLocalMinter } from './services/minter/local.js';
import type { Minter } from './services/minter/port.js';
import { createHttpStorage } from './services/storage/http.js';
import { createLocalStorage } from './services/storage/local.js';
import type { Storage } from './services/storage/port.js';

/*
 * The services the settings select, each a port (services/<name>/port.ts) with its adapters
 * beside it: the choice is made here, by the composition of the ingest steps, never by a port.
 */

export interface StorageOptions {
  /**
   * Base URL under which an HTTP storage service can fetch files of `workRoot`
   * (`<base>/<bid>/<jid>/producer/a.tif`). Without it the manifest lists `file://` URLs, which
   * only a service on the same host (or mount) can read.
   */
  filesBaseUrl?: string;
}

/** The storage the settings select: the local versioned store under `dataDir`, or the HTTP endpoint. */
export function createStorage(
  settings: Pick<IngestSettings, 'dataDir' | 'storage' | 'workRoot' | 'storeSync'>,
  options: StorageOptions = {},
): Storage {
  const endpoint = settings.storage;
  if (endpoint.kind === 'local')
    return createLocalStorage(settings.dataDir, { sync: settings.storeSync ?? true });
  return createHttpStorage(endpoint, { workRoot: settings.workRoot, filesBaseUrl: options.filesBaseUrl });
}

/** The inventory the settings select: local files under `dataDir`, or the HTTP endpoint. */
export function createInventory(settings: Pick<IngestSettings, 'dataDir' | 'inventory'>): Inventory {
  const endpoint = settings.inventory;
  return endpoint.kind === 'http' ? createHttpInventory(endpoint) : createLocalInventory(settings.dataDir);
}

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
