import type { AccessSteps, BatchSteps, JobStepSet, MerrittJobSteps } from '../contracts.js';
import { createAccessSteps } from './access-step.js';
import type { QueueContext } from '../../queue/context.js';
import { createCompletedStep } from './completed.js';
import type { IngestSettings, Profile } from './contracts.js';
import { createDownloadStep } from './download.js';
import { createEstimateStep } from './estimate.js';
import { createExpandStep } from './expand.js';
import { createFetcher } from './fetch.js';
import { createInventory } from './inventory.js';
import { createMinter } from './minter.js';
import { createNotifyStep } from './notify.js';
import { createProcessStep } from './process.js';
import { loadProfiles, type ProfileStore } from './profiles.js';
import { createProvisionStep } from './provision.js';
import { createRecordStep } from './record.js';
import { createReportStep, describeJobsFromQueue } from './report.js';
import { createStorage } from './storage.js';
import { createStoreStep } from './store.js';

/** The ingest steps of issue #6, wired for one process. */
export interface IngestSteps {
  jobSteps: JobStepSet & { steps: MerrittJobSteps };
  batchSteps: BatchSteps;
  accessSteps: AccessSteps;
  profiles: ProfileStore;
  /** Closes the HTTP connection pool (at shutdown). */
  close(): Promise<void>;
}

/**
 * Builds every ingest step from the settings: the external services (minter, storage,
 * inventory) are the local defaults under the data directory unless an HTTP endpoint is
 * configured; reports go out by SMTP when configured, else to the outbox.
 */
export async function createIngestSteps(settings: IngestSettings, queue: QueueContext): Promise<IngestSteps> {
  const fetcher = createFetcher(settings.fetch);
  const profiles = await loadProfiles(settings.profilesDir);
  const minter = createMinter(settings);
  const storage = createStorage(settings);
  const inventory = createInventory(settings);
  const profileOf = (name: string): Profile | undefined =>
    profiles.names().includes(name) ? profiles.getProfile(name) : undefined;
  return {
    profiles,
    close: () => fetcher.close(),
    jobSteps: {
      steps: {
        estimate: createEstimateStep({ fetcher, settings }),
        provision: createProvisionStep({ settings }),
        download: createDownloadStep({ fetcher, settings }),
        process: createProcessStep({ settings, minter, inventory, queue }),
        store: createStoreStep({ settings, storage, fetcher, queue }),
        record: createRecordStep({ settings, inventory, storage, queue }),
        notify: createNotifyStep({ settings, profileOf }),
      },
      completed: createCompletedStep({ settings }),
    },
    accessSteps: createAccessSteps(settings),
    batchSteps: {
      expand: createExpandStep({ fetcher, profiles, settings }),
      report: createReportStep({ settings, profileOf, describeJob: describeJobsFromQueue(queue) }),
    },
  };
}
