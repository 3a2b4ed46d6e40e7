import type { AccessSteps, BatchSteps, JobStepSet, MerrittJobSteps } from './contracts.js';
import { createAccessSteps } from './access/step.js';
import type { QueueContext } from '../queue/tree/context.js';
import { createLocalIdLock } from '../queue/locks/local-id.js';
import { createCompletedStep } from './job/completed.js';
import type { Profile } from './ingest-contracts.js';
import type { IngestSettings } from '../config/ingest-settings.js';
import { createDownloadStep } from './job/download.js';
import { createEstimateStep } from './job/estimate.js';
import { createExpandStep } from './batch/expand.js';
import { createFetcher } from './services/fetch/fetch.js';
import { createInventory } from './adapters.js';
import { createMinter } from './adapters.js';
import { createNotifyStep } from './job/notify.js';
import { createProcessStep } from './job/process.js';
import { loadProfiles, type ProfileStore } from './formats/profiles/profiles.js';
import { createProvisionStep, waitedInQueue } from './job/provision.js';
import { createQueuedMail } from './batch/queued-mail.js';
import { createRecordStep } from './job/record.js';
import { createReportStep, describeJobsFromQueue } from './batch/report.js';
import { createStorage } from './adapters.js';
import { createStoreStep } from './job/store.js';
import { removeLeftoverWorkDirs } from './workdir/sweep.js';
import { registerLocalRoot } from './fs/local-roots.js';

/** The ingest steps of issue #6, wired for one process. */
export interface IngestSteps {
  jobSteps: JobStepSet & { steps: MerrittJobSteps };
  batchSteps: BatchSteps;
  accessSteps: AccessSteps;
  profiles: ProfileStore;
  /** Closes the HTTP connection pool and stops the working-directory sweep (at shutdown). */
  close(): Promise<void>;
}

/** How often a serving process removes working directories nothing will use again (see workdir-sweep.ts). */
const WORKDIR_SWEEP_MS = 10 * 60_000;

/**
 * The completed step removes a job's working directory after its commit; a process killed in
 * between leaves it. At start (a restart after such a kill) and every ten minutes after, the
 * directories of jobs that are done or gone go.
 */
function sweepWorkDirs(settings: IngestSettings, queue: QueueContext): NodeJS.Timeout {
  const sweep = (): void => {
    removeLeftoverWorkDirs(queue, { workRoot: settings.workRoot }).then(
      (removed) => {
        for (const { dir, reason } of removed)
          queue.log.info({ dir, reason }, 'leftover working directory removed');
      },
      (err: unknown) => queue.log.warn({ err }, 'working-directory sweep failed; tried again later'),
    );
  };
  setImmediate(sweep);
  const timer = setInterval(sweep, WORKDIR_SWEEP_MS);
  timer.unref();
  return timer;
}

/**
 * Builds every ingest step from the settings: the external services (minter, storage,
 * inventory) are the local defaults under the data directory unless an HTTP endpoint is
 * configured; reports go out by SMTP when configured, else to the outbox.
 */
export async function createIngestSteps(settings: IngestSettings, queue: QueueContext): Promise<IngestSteps> {
  // Checked in the background: a hung network mount must not hold up start-up (calls there go
  // through the thread pool until the check says local, and stay there otherwise).
  void registerLocalRoot(settings.workRoot);
  const fetcher = createFetcher(settings.fetch);
  const profiles = await loadProfiles(settings.profilesDir, { log: queue.log });
  const minter = createMinter(settings);
  const storage = createStorage(settings);
  const inventory = createInventory(settings);
  const profileOf = (name: string): Profile | undefined =>
    profiles.names().includes(name) ? profiles.getProfile(name) : undefined;
  const sweep = sweepWorkDirs(settings, queue);
  return {
    profiles,
    close: async () => {
      clearInterval(sweep);
      await fetcher.close();
    },
    jobSteps: {
      steps: {
        estimate: createEstimateStep({ fetcher, settings }),
        provision: createProvisionStep({ settings, waited: waitedInQueue(queue) }),
        download: createDownloadStep({ fetcher, settings }),
        process: createProcessStep({
          settings,
          minter,
          inventory,
          queue,
          profileOf,
          localIdLock: createLocalIdLock(queue),
        }),
        store: createStoreStep({ settings, storage, fetcher, queue }),
        record: createRecordStep({ settings, inventory, storage, queue }),
        notify: createNotifyStep({ settings, profileOf }),
      },
      completed: createCompletedStep({ settings }),
    },
    accessSteps: createAccessSteps(settings),
    batchSteps: {
      expand: createExpandStep({ fetcher, profiles, settings, queuedMail: createQueuedMail({ settings }) }),
      report: createReportStep({ settings, profileOf, describeJob: describeJobsFromQueue(queue) }),
    },
  };
}
