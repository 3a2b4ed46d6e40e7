import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import type { JobRecord } from '../../../src/queue/jobs/load.js';
import { createSimulatedSteps } from '../../../src/steps/simulated.js';

const log = pino({ level: 'silent' });
const job = (retryCount: number, configuration: Record<string, unknown>): JobRecord =>
  ({
    jobId: 'jid1',
    batchId: 'bid1',
    status: 'downloading',
    retryCount,
    configuration: {
      profile_name: 'demo',
      submitter: 's',
      payload_url: 'sim:object/0',
      payload_type: 'x',
      ...configuration,
    },
  }) as unknown as JobRecord;

describe('simulated failures', () => {
  const { jobSteps } = createSimulatedSteps();
  const download = (j: JobRecord) =>
    jobSteps.steps.download({ job: j, signal: new AbortController().signal, log });

  it('fail-once fails the first attempt only: a requeued job (retry count 1) gets through', async () => {
    await expect(download(job(0, { simulate_fail_once_at: 'downloading' }))).rejects.toThrow(
      'simulated failure while downloading (first attempt only)',
    );
    await expect(download(job(1, { simulate_fail_once_at: 'downloading' }))).resolves.toEqual({});
    await expect(download(job(0, { simulate_fail_once_at: 'processing' }))).resolves.toEqual({});
  });

  it('fail-at fails every attempt', async () => {
    await expect(download(job(3, { simulate_fail_at: 'downloading' }))).rejects.toThrow(
      'simulated failure while downloading',
    );
  });
});
