import { join, relative, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { JobRecord } from '../../../queue/jobs/load.js';
import type { Profile } from '../../ingest-contracts.js';
import type { IngestSettings } from '../../../config/ingest-settings.js';
import { DEFAULT_STORAGE_NODE, EMBEDDED_STORE_URL, ingestQueueUrl } from './handoff.js';
import { OutputError } from '../../output-errors.js';

/** What deciding a job's hand-off needs: the deployment's settings and the job's profile. */
export interface HandOffDeps {
  settings: Pick<IngestSettings, 'workRoot' | 'storage' | 'deployment' | 'merritt'>;
  /** The job's profile by name (its `StorageService` and `StorageNode`). */
  profileOf?: (name: string) => Profile | undefined;
}

/** Where a job's object goes and how storage reaches its files. */
export interface HandOffPlan {
  /** The storage node of the store node's `mode`. */
  node: number;
  /** Base of the inventory node's `{storeUrl}/manifest/{node}/{ark}`. */
  storeUrl: string;
  /** The URL storage fetches a file of the working directory from (a path such as `system/mrt-manifest.txt`). */
  fileUrl: (path: string) => string;
}

/**
 * Standalone: the embedded store, which reads the working directory by `file://` URL. Merritt
 * deployment (merritt-protocols.md §1, §2): Merritt's storage service fetches the manifest and
 * files over HTTP from this engine (`{MRTQ_PUBLIC_URL}/ingestqueue/<bid>/<jid>/…`), and
 * inventory loads the stored version from `{StorageService}/manifest/{StorageNode}/{ark}`; the
 * profile's `StorageService` and `StorageNode` win over the settings, as in Merritt's ingest.
 */
export function planHandOff(deps: HandOffDeps, job: JobRecord, workDir: string): HandOffPlan {
  const { settings } = deps;
  if (settings.deployment !== 'merritt') {
    const storeUrl = settings.storage.kind === 'http' ? settings.storage.url : EMBEDDED_STORE_URL;
    return {
      node: DEFAULT_STORAGE_NODE,
      storeUrl: storeUrl.replace(/\/+$/, ''),
      fileUrl: (path) => pathToFileURL(join(workDir, path)).href,
    };
  }
  const name = job.configuration.profile_name;
  const profile = deps.profileOf?.(name);
  const storeUrl = profile?.storageService ?? settings.merritt?.storageService;
  const publicUrl = settings.merritt?.publicUrl;
  if (!storeUrl)
    throw new OutputError(
      'HANDOFF_INVALID',
      `job ${job.jobId}: profile "${name}" names no StorageService and MRTQ_STORAGE_SERVICE is not set, so ` +
        "Merritt's inventory service could not find the stored version; set one and requeue the job",
    );
  if (!publicUrl)
    throw new OutputError(
      'HANDOFF_INVALID',
      `job ${job.jobId}: MRTQ_PUBLIC_URL is not set, so Merritt's storage service could not fetch the object`,
    );
  const dir = relative(settings.workRoot, workDir).split(sep).join('/');
  return {
    node: profile?.storageNode ?? settings.merritt?.storageNode ?? DEFAULT_STORAGE_NODE,
    storeUrl: storeUrl.replace(/\/+$/, ''),
    fileUrl: (path) => ingestQueueUrl(publicUrl, dir, path),
  };
}
