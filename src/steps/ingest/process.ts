import { join } from 'node:path';
import type { JobSteps, StepWrites } from '../../engine/steps.js';
import type { QueueContext } from '../../queue/context.js';
import type { JobRecord } from '../../queue/job-load.js';
import type { DownloadRecord, IngestSettings } from './contracts.js';
import { writeErcFiles } from './erc.js';
import type { Inventory } from './inventory.js';
import type { Minter } from './minter.js';
import { OutputError } from './output-errors.js';
import { assertArk, digestFile } from './output-files.js';
import { withObjectLock } from './output-lock.js';
import {
  jobWorkDir,
  persistArk,
  readDownloadRecord,
  readPersistedArk,
  writeStoredVersion,
} from './output-workdir.js';
import type { Storage, StoreFile } from './storage.js';

/** What the processing step is built from (the composition root wires the services the settings select). */
export interface ProcessDeps {
  settings: Pick<IngestSettings, 'workRoot'>;
  minter: Minter;
  storage: Storage;
  inventory: Inventory;
  queue: QueueContext;
}

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

/**
 * The processing step (seed 001 "Processing → Recording"): local-id lookup, ark (given, found
 * or minted), ERC and Dublin Core, then the object stored under `/locks/storage/<ark>`. Returns
 * the identifiers, which the engine writes in the same multi as the transition. Safe to re-run:
 * the minted ark is reused and storage returns the version that already holds these files.
 */
export function createProcessStep(deps: ProcessDeps): JobSteps['process'] {
  return async ({ job, signal, log }): Promise<StepWrites> => {
    const workDir = jobWorkDir(deps.settings, job);
    const download = await readDownloadRecord(workDir);
    const localIds = localIdsOf(job, download);
    const ark = await chooseArk(deps, { job, download, localIds, workDir, signal });
    const systemPaths = await writeErcFiles(workDir, { ark, localIds, erc: download.object.erc });
    const files = [...download.files, ...(await describeSystemFiles(workDir, systemPaths, signal))];
    const stored = await withObjectLock(deps.queue, 'storage', ark, log, () =>
      deps.storage.store({ ark, workDir, files, signal }),
    );
    await writeStoredVersion(workDir, { ark, ...stored });
    log.info({ ark, version: stored.version, files: files.length }, 'stored');
    return { identifiers: { primary_id: ark, local_id: localIds } };
  };
}
