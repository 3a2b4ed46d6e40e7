import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { MerrittJobSteps, StepWrites } from '../contracts.js';
import type { QueueContext } from '../../queue/context.js';
import type { JobRecord } from '../../queue/job-load.js';
import type { DownloadRecord, IngestSettings } from './contracts.js';
import { writeErcFiles } from './erc.js';
import {
  DEFAULT_STORAGE_NODE,
  EMBEDDED_STORE_URL,
  inventoryNode,
  storeNode,
  type StoreTarget,
} from './handoff.js';
import type { Inventory } from './inventory.js';
import type { Minter } from './minter.js';
import { OutputError } from './output-errors.js';
import { assertArk, digestFile, writeFileAtomic } from './output-files.js';
import { jobWorkDir, persistArk, readDownloadRecord, readPersistedArk } from './output-workdir.js';
import type { StoreFile } from './storage.js';
import { formatStorageManifest } from './storage-manifest.js';

/** What the processing step is built from (the composition root wires the services the settings select). */
export interface ProcessDeps {
  settings: Pick<IngestSettings, 'workRoot' | 'storage'>;
  minter: Minter;
  inventory: Inventory;
  queue: QueueContext;
}

/** The manifest processing hands to storage: every file of the object, by `file://` URL. */
export const HANDOFF_MANIFEST = 'system/mrt-manifest.txt';

interface ArkInputs {
  job: JobRecord;
  download: DownloadRecord;
  localIds: string[];
  workDir: string;
  signal: AbortSignal;
}

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/** Local ids from the manifest, the job's configuration and its identifiers node, once each. */
function localIdsOf(job: JobRecord, download: DownloadRecord): string[] {
  const ids = [
    download.object.localIdentifier,
    job.configuration.local_id,
    ...(job.identifiers?.local_id ?? []),
  ];
  return [...new Set(ids.filter(nonEmpty).map((id) => id.trim()))];
}

/** The one ark the local ids already name (a conflict when they name several). */
async function existingArk(deps: ProcessDeps, localIds: string[], signal: AbortSignal) {
  const found = new Map<string, string>();
  for (const id of localIds) {
    const ark = await deps.inventory.lookupLocalId(id, signal);
    if (ark) found.set(ark, id);
  }
  if (found.size > 1) {
    const pairs = [...found].map(([ark, id]) => `"${id}" → ${ark}`).join(', ');
    throw new OutputError('IDENTIFIER_CONFLICT', `the job's local ids name different objects (${pairs})`);
  }
  const [entry] = found;
  return entry ? { ark: entry[0], localId: entry[1] } : undefined;
}

/**
 * Seed 001: the depositor's ark, else the ark the local id already names, else a minted one.
 * A minted ark is written to the working directory before it is used, so a re-run reuses it.
 */
async function chooseArk(deps: ProcessDeps, inputs: ArkInputs): Promise<string> {
  const { job, download } = inputs;
  const givenRaw = [download.object.primaryIdentifier, job.identifiers?.primary_id].find(nonEmpty);
  const given = givenRaw === undefined ? undefined : assertArk(givenRaw.trim());
  const existing = await existingArk(deps, inputs.localIds, inputs.signal);
  if (given && existing && given !== existing.ark) {
    throw new OutputError(
      'IDENTIFIER_CONFLICT',
      `the depositor's ark ${given} disagrees with ${existing.ark}, which local id "${existing.localId}" ` +
        'already names; correct the ark or the local id and submit again',
    );
  }
  const known = given ?? existing?.ark ?? (await readPersistedArk(inputs.workDir));
  if (known) return known;
  const minted = await deps.minter.mint(inputs.signal);
  await persistArk(inputs.workDir, minted);
  return minted;
}

async function describeSystemFiles(
  workDir: string,
  paths: string[],
  signal: AbortSignal,
): Promise<StoreFile[]> {
  return Promise.all(
    paths.map(async (path) => ({ path, ...(await digestFile(join(workDir, path), 'sha256', signal)) })),
  );
}

/** Where the object goes: its ark on the storage node, as a new object or an update. */
function storeTarget(job: JobRecord, ark: string): StoreTarget {
  const action = job.configuration.submission_mode === 'update' ? 'update' : 'add';
  return { action, node: DEFAULT_STORAGE_NODE, ark };
}

/** The manifest of every file, as Merritt's ingest hands it to storage (its own line left out). */
async function writeHandOffManifest(workDir: string, files: StoreFile[]): Promise<string> {
  const path = join(workDir, HANDOFF_MANIFEST);
  await writeFileAtomic(
    path,
    formatStorageManifest(files, (file) => pathToFileURL(join(workDir, file)).href),
  );
  return pathToFileURL(path).href;
}

/**
 * The processing step (seed 001; mrt-zk's Processing → Storing since October 2025): local-id
 * lookup, ark (given, found or minted), ERC and Dublin Core, and the manifest of the object.
 * It ends by handing the object to storage: the identifiers and the two hand-off nodes
 * (`/jobs/JID/store`, `/jobs/JID/inventory`, merritt-protocols.md §1, §2) are written by the
 * engine in the same multi as the move to storing. Safe to re-run: the minted ark is reused and
 * the manifest is written again from the same files.
 */
export function createProcessStep(deps: ProcessDeps): MerrittJobSteps['process'] {
  return async ({ job, signal, log }): Promise<StepWrites> => {
    const workDir = jobWorkDir(deps.settings, job);
    const download = await readDownloadRecord(workDir);
    const localIds = localIdsOf(job, download);
    const ark = await chooseArk(deps, { job, download, localIds, workDir, signal });
    const systemPaths = await writeErcFiles(workDir, { ark, localIds, erc: download.object.erc });
    const files = [...download.files, ...(await describeSystemFiles(workDir, systemPaths, signal))];
    const manifestUrl = await writeHandOffManifest(workDir, files);
    const target = storeTarget(job, ark);
    const storeUrl = deps.settings.storage.kind === 'http' ? deps.settings.storage.url : EMBEDDED_STORE_URL;
    log.info({ ark, files: files.length, mode: target.action }, 'handed to storage');
    return {
      identifiers: { primary_id: ark, local_id: localIds },
      store: storeNode(manifestUrl, target),
      inventory: inventoryNode(storeUrl.replace(/\/+$/, ''), target),
    };
  };
}
