import { join } from 'node:path';
import type { MerrittJobSteps, StepWrites } from '../contracts.js';
import type { QueueContext } from '../../queue/tree/context.js';
import { createLocalIdLock, type LocalIdLock } from '../../queue/locks/local-id.js';
import type { JobRecord } from '../../queue/jobs/load.js';
import type { JobMetadata } from '../../queue/tree/records.js';
import type { DownloadRecord, Profile } from '../ingest-contracts.js';
import type { IngestSettings } from '../../config/ingest-settings.js';
import { moveDeleteList, readDeleteList } from '../formats/delete-list.js';
import { createDigester } from '../formats/digest.js';
import { writeErcFiles } from '../formats/erc.js';
import { MIME_SNIFF_BYTES, mimeTypeOf } from '../services/handoff/mime.js';
import { inventoryNode, storeNode, type StoreTarget } from '../services/handoff/handoff.js';
import { handOffRows, type DescribedFile } from '../services/handoff/files.js';
import { formatHandOffManifest } from '../services/handoff/manifest.js';
import { planHandOff, type HandOffPlan } from '../services/handoff/plan.js';
import type { Inventory } from '../services/inventory/port.js';
import { splitLocalIds } from '../formats/local-ids.js';
import type { MintRequest, Minter } from '../services/minter/port.js';
import { OutputError } from '../output-errors.js';
import { assertArk, writeFileFresh } from '../workdir/files.js';
import { jobWorkDir, persistArk, readDownloadRecord, readPersistedArk } from '../workdir/workdir.js';
import {
  applyProducerErc,
  PRODUCER_ERC_FILE,
  readProducerErc,
  type DescribedObject,
} from '../formats/producer-erc.js';

/** What the processing step is built from (the composition root wires the services the settings select). */
export interface ProcessDeps {
  settings: Pick<IngestSettings, 'workRoot' | 'storage' | 'deployment' | 'merritt'>;
  minter: Minter;
  inventory: Inventory;
  queue: QueueContext;
  /** The job's profile by name: its `StorageService` and `StorageNode` in a Merritt deployment. */
  profileOf?: (name: string) => Profile | undefined;
  /** `/locks/localid/…` around lookup-or-mint (default: one on `queue`'s session). */
  localIdLock?: LocalIdLock;
}

/** The manifest processing hands to storage: every file of the object, by URL (see planHandOff). */
export const HANDOFF_MANIFEST = 'system/mrt-manifest.txt';

interface ArkInputs {
  job: JobRecord;
  described: Described;
  localIds: string[];
  workDir: string;
  signal: AbortSignal;
}

/** The object as described, and whether the depositor's own `mrt-erc.txt` had a say. */
type Described = DescribedObject & { fromProducer?: boolean };

const nonEmpty = (value: unknown): value is string => typeof value === 'string' && value.trim() !== '';

/**
 * What the object is said to be: the ERC and ids from the form or the manifest row, then the
 * depositor's own `producer/mrt-erc.txt` over them (producer-erc.ts). Local ids come from the
 * manifest, the job's configuration and its identifiers node, split at `;`, once each.
 */
async function describe(job: JobRecord, download: DownloadRecord, workDir: string): Promise<Described> {
  const localIds = splitLocalIds([
    download.object.localIdentifier,
    job.configuration.local_id,
    ...(job.identifiers?.local_id ?? []),
  ]);
  const primaryId = [download.object.primaryIdentifier, job.identifiers?.primary_id].find(nonEmpty)?.trim();
  const given: DescribedObject = { erc: download.object.erc, localIds, ...(primaryId ? { primaryId } : {}) };
  // Read only when the object has one (the download record lists every file it wrote).
  const hasOwn = download.files.some((file) => file.path === PRODUCER_ERC_FILE);
  const producer = hasOwn ? await readProducerErc(workDir) : undefined;
  return producer ? { ...applyProducerErc(given, producer), fromProducer: true } : given;
}

/** The job's metadata node from the object's ERC, when the depositor's own ERC changed it. */
function metadataOf(described: Described, before: JobMetadata | undefined): JobMetadata | undefined {
  if (!described.fromProducer) return undefined;
  const { erc } = described;
  const metadata: JobMetadata = { ...before };
  if (erc.who) metadata.erc_who = erc.who;
  if (erc.what) metadata.erc_what = erc.what;
  if (erc.when) metadata.erc_when = erc.when;
  const same = JSON.stringify(metadata) === JSON.stringify(before ?? {});
  return same ? undefined : metadata;
}

/** The one ark the local ids already name for the owner (a conflict when they name several). */
async function existingArk(deps: ProcessDeps, ids: ArkIds, signal: AbortSignal) {
  const found = new Map<string, string>();
  for (const id of ids.localIds) {
    const ark = await deps.inventory.lookupLocalId(id, signal, ids.owner);
    if (ark) found.set(ark, id);
  }
  if (found.size > 1) {
    const pairs = [...found].map(([ark, id]) => `"${id}" → ${ark}`).join(', ');
    throw new OutputError('IDENTIFIER_CONFLICT', `the job's local ids name different objects (${pairs})`);
  }
  const [entry] = found;
  return entry ? { ark: entry[0], localId: entry[1] } : undefined;
}

/** What the ark is chosen from: the depositor's ark, the local ids worth asking about, the owner. */
interface ArkIds {
  given?: string;
  /** Local ids but ERC's "unassigned" `(:unas)`, which Merritt neither looks up nor records. */
  localIds: string[];
  owner?: string;
  profile?: Profile;
}

function arkIdsOf(deps: ProcessDeps, inputs: ArkInputs): ArkIds {
  const { job, described } = inputs;
  const profile = deps.profileOf?.(job.configuration.profile_name);
  return {
    ...(described.primaryId === undefined ? {} : { given: assertArk(described.primaryId) }),
    localIds: inputs.localIds.filter((id) => !id.includes('(:unas)')),
    ...(profile?.owner ? { owner: profile.owner } : {}),
    ...(profile ? { profile } : {}),
  };
}

/** What the minter may tell EZID about the object. */
function mintRequestOf(inputs: ArkInputs, ids: ArkIds): MintRequest {
  const retain = inputs.job.configuration.retain_target_url;
  return {
    erc: inputs.described.erc,
    localIds: inputs.localIds,
    ...(ids.profile ? { profile: ids.profile } : {}),
    ...(retain === true || retain === 'true' ? { retainTargetUrl: true } : {}),
  };
}

/**
 * Lookup-or-mint (merritt-protocols.md §3): the depositor's ark, else the ark a local id already
 * names, else the one minted before a crash, else a new one; then the local ids are recorded
 * for it, so a job holding the same local id next finds it. A minted ark is written to the
 * working directory before it is used, so a re-run reuses it.
 */
async function lookupOrMint(deps: ProcessDeps, inputs: ArkInputs, ids: ArkIds): Promise<string> {
  const existing = await existingArk(deps, ids, inputs.signal);
  if (ids.given && existing && ids.given !== existing.ark) {
    throw new OutputError(
      'IDENTIFIER_CONFLICT',
      `the depositor's ark ${ids.given} disagrees with ${existing.ark}, which local id "${existing.localId}" ` +
        'already names; correct the ark or the local id and submit again',
    );
  }
  let ark = ids.given ?? existing?.ark ?? (await readPersistedArk(inputs.workDir));
  if (!ark) {
    ark = await deps.minter.mint(inputs.signal, mintRequestOf(inputs, ids));
    await persistArk(inputs.workDir, ark);
  }
  for (const localId of ids.localIds)
    await deps.inventory.bindLocalId?.({
      ark,
      localId,
      signal: inputs.signal,
      ...(ids.owner ? { owner: ids.owner } : {}),
    });
  return ark;
}

/**
 * Seed 001 with Merritt's HandlerMinter: a job with local ids and no ark of its own holds
 * `/locks/localid/<localid_owner>` around lookup-or-mint, so two jobs with the same new local
 * id (in any engine, or in Merritt's ingest) get one ark. The minter is then told the object's
 * metadata (EZID's update call), whichever way the ark was chosen.
 */
async function chooseArk(deps: ProcessDeps, inputs: ArkInputs): Promise<string> {
  const ids = arkIdsOf(deps, inputs);
  const choose = () => lookupOrMint(deps, inputs, ids);
  const lock = deps.localIdLock ?? createLocalIdLock(deps.queue);
  const ark =
    ids.localIds.length > 0 && !ids.given
      ? await lock.hold(ids.localIds, ids.owner, inputs.signal, choose)
      : await choose();
  await deps.minter.update?.(ark, mintRequestOf(inputs, ids), inputs.signal);
  return ark;
}

/** The files processing wrote, described from their bytes (sha256, size, MIME type): not read back. */
function describeSystemFiles(written: ReadonlyArray<{ path: string; data: Buffer }>): DescribedFile[] {
  return written.map(({ path, data }) => {
    const hash = createDigester('sha256');
    hash.update(data);
    const value = hash.digest();
    return {
      path,
      size: data.length,
      digest: { algorithm: 'sha256', value },
      mimeType: mimeTypeOf(path, data.subarray(0, MIME_SNIFF_BYTES)),
    };
  });
}

/** Where the object goes: its ark on the storage node, as a new object or an update. */
function storeTarget(job: JobRecord, ark: string, plan: HandOffPlan): StoreTarget {
  const action = job.configuration.submission_mode === 'update' ? 'update' : 'add';
  return { action, node: plan.node, ark };
}

/**
 * The manifest of every file in Merritt's `mrt-add-manifest` format, as its ingest hands it to
 * storage (handoff-manifest.ts), its own line left out. The job's submitted manifest is never
 * among the files: the download step keeps only the object's files.
 */
async function writeHandOffManifest(
  workDir: string,
  files: DescribedFile[],
  plan: HandOffPlan,
  signal: AbortSignal,
): Promise<string> {
  const listed = files.filter((file) => file.path !== HANDOFF_MANIFEST);
  const rows = await handOffRows(workDir, listed, plan.fileUrl, signal);
  await writeFileFresh(join(workDir, HANDOFF_MANIFEST), formatHandOffManifest(rows));
  return plan.fileUrl(HANDOFF_MANIFEST);
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
    // Decided first: a deployment that cannot hand the object over fails before minting.
    const plan = planHandOff(deps, job, workDir);
    const download = await readDownloadRecord(workDir);
    const described = await describe(job, download, workDir);
    const { localIds, erc } = described;
    const ark = await chooseArk(deps, { job, described, localIds, workDir, signal });
    const systemFiles = await writeErcFiles(workDir, { ark, localIds, erc });
    const target = storeTarget(job, ark, plan);
    const files = await moveDeleteList(workDir, target, [
      ...download.files,
      ...describeSystemFiles(systemFiles),
    ]);
    const manifestUrl = await writeHandOffManifest(workDir, files, plan, signal);
    log.info({ ark, files: files.length, mode: target.action }, 'handed to storage');
    const metadata = metadataOf(described, job.metadata);
    return {
      identifiers: { primary_id: ark, local_id: localIds },
      ...(metadata ? { metadata } : {}),
      store: storeNode(manifestUrl, target, await readDeleteList(workDir, target)),
      inventory: inventoryNode(plan.storeUrl, target),
    };
  };
}
