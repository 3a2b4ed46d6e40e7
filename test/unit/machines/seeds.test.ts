import { describe, expect, it } from 'vitest';
import { accessTable, batchTable, jobTable, type TableEdge } from '../../../machines/index.js';

/** Where an edge is written down: a seed file (by its number) and the words it uses. */
interface Citation {
  seed: '000' | '001' | '002' | '003' | 'DESIGN.md §3' | 'merritt-protocols.md §6';
  quote: string;
}
interface Documented {
  from: string | null;
  to: string;
  cites: Citation[];
}

const s001 = (quote: string): Citation => ({ seed: '001', quote });
const s003 = (quote: string): Citation => ({ seed: '003', quote });
const design = (quote: string): Citation => ({ seed: 'DESIGN.md §3', quote });
/** mrt-zk's states.yml and mrt-admin's requeue table, as merritt-protocols.md §6 reads them: over the seeds. */
const mrtzk = (quote: string): Citation => ({ seed: 'merritt-protocols.md §6', quote });

// The job edges of seeds 001 (Queue States) and 003 (transition walkthrough); 003 stands over 001.
const documentedJobEdges: Documented[] = [
  { from: null, to: 'pending', cites: [s001('(None) --> Pending')] },
  { from: null, to: 'failed', cites: [s001('(None) --> Failed')] },
  {
    from: 'pending',
    to: 'held',
    cites: [
      s001('Pending --> Held'),
      s003('The job will be kept in a Held state until an administrative action releases the job.'),
    ],
  },
  {
    from: 'pending',
    to: 'estimating',
    cites: [
      s001('Pending --> Estimating'),
      s003('Once a job is acquired, it will move to an Estimating step.'),
    ],
  },
  {
    from: 'pending',
    to: 'failed',
    cites: [s003('A job will immediately fail under the following conditions')],
  },
  {
    from: 'held',
    to: 'pending',
    cites: [s003('Job is administratively released back to a Pending status.')],
  },
  { from: 'held', to: 'deleted', cites: [s003('Upon completion of a held job')] },
  {
    from: 'estimating',
    to: 'provisioning',
    cites: [s001('Estimating --> Provisioning'), s003('The estimating step does not fail.')],
  },
  { from: 'provisioning', to: 'downloading', cites: [s001('Provisioning --> Downloading')] },
  {
    from: 'provisioning',
    to: 'failed',
    cites: [mrtzk('Provisioning → Downloading (success), Failed (fail).')],
  },
  {
    from: 'estimating',
    to: 'failed',
    cites: [mrtzk('Estimating → Provisioning (success), Failed (fail).')],
  },
  {
    from: 'provisioning',
    to: 'provisioning',
    cites: [s003('Jobs that fail the provisioning test will remain in this state')],
  },
  { from: 'downloading', to: 'processing', cites: [s001('Downloading --> Processing')] },
  {
    from: 'downloading',
    to: 'failed',
    cites: [
      s001('Downloading --> Failed (downloading)'),
      s003('If any individual download does not succeed'),
    ],
  },
  { from: 'processing', to: 'storing', cites: [mrtzk('Processing → Storing (success), Failed (fail).')] },
  { from: 'storing', to: 'recording', cites: [mrtzk('Storing → Recording (success), Failed (fail).')] },
  { from: 'storing', to: 'failed', cites: [mrtzk('Storing → Recording (success), Failed (fail).')] },
  {
    from: 'processing',
    to: 'failed',
    cites: [
      s001('Processing --> Failed (processing)'),
      s003('Jobs may fail processing due to minting failure or storage failures.'),
    ],
  },
  { from: 'recording', to: 'notify', cites: [s003('status: notify')] },
  {
    from: 'recording',
    to: 'failed',
    cites: [
      s001('Recording --> Failed (recording)'),
      s003('error occurred while recording an object change in the inventory database'),
    ],
  },
  { from: 'notify', to: 'completed', cites: [s003('status: completed')] },
  {
    from: 'notify',
    to: 'failed',
    cites: [s003('If the event of a callback failure, the job will go to a Failed state.')],
  },
  { from: 'failed', to: 'estimating', cites: [s001('Failed --> Estimating')] },
  { from: 'failed', to: 'provisioning', cites: [s001('Failed --> Provisioning')] },
  {
    from: 'failed',
    to: 'downloading',
    cites: [s001('Failed --> Downloading'), s003('The failed job will be resumed via an admin action.')],
  },
  {
    from: 'failed',
    to: 'processing',
    cites: [s001('Failed --> Processing'), s003('The failed job will be resumed via an admin action.')],
  },
  { from: 'failed', to: 'storing', cites: [mrtzk('| `Processing` | **Storing** |')] },
  {
    from: 'failed',
    to: 'recording',
    cites: [s001('Failed --> Recording'), s003('The failed job will be resumed via an admin action.')],
  },
  { from: 'failed', to: 'notify', cites: [s003('status: notify')] },
  {
    from: 'failed',
    to: 'deleted',
    cites: [s001('Failed --> Deleted (admin function)'), s003('Upon deletion of a failed job')],
  },
];

/**
 * Edges no document has, added by a decision written next to the machine and in docs/machines.md:
 * a transient failure its retry policy allows to try again keeps the job in its working state
 * (issue 34), so its batch does not report while it waits.
 */
const decidedJobEdges = ['downloading', 'processing', 'storing', 'recording', 'notify'].map((state) => ({
  from: state,
  to: state,
  why: 'step.retry: a transient failure; the job waits in its state for its next attempt',
}));

/** 001 edges that 003 (or mrt-zk's states.yml, or a decision) replaced; the table must not have them. */
const overruledJobEdges = [
  { from: 'processing', to: 'recording', cite: s001('Processing --> Recording') },
  { from: 'held', to: 'estimating', cite: s001('Held --> Estimating (admin function)') },
  { from: 'recording', to: 'completed', cite: s001('Recording  --> Completed') },
];

const documentedBatchEdges: Documented[] = [
  { from: null, to: 'pending', cites: [s001('(None) --> Pending')] },
  {
    from: 'pending',
    to: 'held',
    cites: [
      s001('Pending --> Held'),
      s003('If a Collection Hold is in place, change status to Held and stop processing.'),
    ],
  },
  { from: 'pending', to: 'processing', cites: [s001('Pending --> Processing')] },
  {
    from: 'held',
    to: 'pending',
    cites: [s003('An administrative action is performed to release a “Held” batch.')],
  },
  {
    from: 'held',
    to: 'deleted',
    cites: [
      s001('Held --> Deleted (admin function)'),
      s003('An administrative action will trigger the delete of a held batch.'),
    ],
  },
  {
    from: 'processing',
    to: 'reporting',
    cites: [
      s001('Processing --> Reporting'),
      s003(
        'Once the last job for a batch has either failed or completed, the batch will move to a reporting step.',
      ),
      mrtzk('Processing → Reporting (success *and* fail), Failed.'),
    ],
  },
  { from: 'reporting', to: 'completed', cites: [s001('Reporting --> Completed')] },
  { from: 'reporting', to: 'failed', cites: [s001('Reporting --> Failed (Reporting)')] },
  { from: 'failed', to: 'processing', cites: [s001('Failed --> Processing')] },
  {
    from: 'failed',
    to: 'update-reporting',
    cites: [
      s003('This action indicates that attempts to troubleshoot failed jobs for a batch have concluded.'),
    ],
  },
  {
    from: 'update-reporting',
    to: 'completed',
    cites: [
      s003(
        'A subsequent report will be sent to the depositor indicating jobs that succeeded since the last report was sent.',
      ),
    ],
  },
  {
    from: 'update-reporting',
    to: 'failed',
    cites: [
      s003(
        'A subsequent report will be sent to the depositor indicating jobs that succeeded since the last report was sent.',
      ),
    ],
  },
  {
    from: 'failed',
    to: 'deleted',
    cites: [
      s001('Failed --> Deleted (admin function)'),
      s003('An administrative action will trigger the delete of a failed batch'),
    ],
  },
];

const overruledBatchEdges = [
  { from: 'held', to: 'processing', cite: s001('Held --> Processing (admin function)') },
  // A batch that cannot be expanded goes to reporting (mrt-zk's "fail" of Processing) so the
  // depositor hears why, and the report ends it failed (docs/machines.md decision 10).
  { from: 'processing', to: 'failed', cite: s001('Processing --> Failed') },
];

/** Edges no document has, added by a decision written next to the machine and in docs/machines.md. */
const decidedBatchEdges = [
  { from: 'processing', to: 'processing', why: 'expand.done: the jobs exist; the batch waits in processing' },
];

// Seed 002 gives the access queue's data only; DESIGN.md §3 gives its lifecycle as Merritt runs it.
const documentedAccessEdges: Documented[] = [
  { from: null, to: 'pending', cites: [design('pending→processing→completed|failed')] },
  { from: 'pending', to: 'processing', cites: [design('pending→processing→completed|failed')] },
  { from: 'processing', to: 'completed', cites: [design('pending→processing→completed|failed')] },
  { from: 'processing', to: 'failed', cites: [design('pending→processing→completed|failed')] },
  {
    from: 'failed',
    to: 'pending',
    cites: [mrtzk('access Requeue (`Failed` or legacy `Consumed`) … sets `Pending`')],
  },
  { from: 'failed', to: 'deleted', cites: [design('failed→processing|deleted')] },
  { from: 'completed', to: 'deleted', cites: [mrtzk('Queue Del (`Failed` or `Completed`) … or `Deleted`')] },
];

// states.yml's Failed → Processing: no Merritt code writes it; mrt-admin requeues to Pending.
const overruledAccessEdges = [
  { from: 'failed', to: 'processing', cite: design('failed→processing|deleted') },
];

const pair = (from: string | null, to: string) => `${from ?? '(none)'} → ${to}`;
const tablePairs = (table: readonly TableEdge<string, string>[]) =>
  [...new Set(table.map((edge) => pair(edge.from, edge.to)))].sort();
const documentedPairs = (edges: Documented[], decided: { from: string; to: string }[] = []) =>
  [...new Set([...edges, ...decided].map((edge) => pair(edge.from, edge.to)))].sort();

describe('the tables and the seeds agree', () => {
  it('every job edge in the table is documented, and every documented job edge is in the table', () => {
    expect(tablePairs(jobTable)).toEqual(documentedPairs(documentedJobEdges, decidedJobEdges));
  });
  it('every batch edge is documented or a written decision, and every documented one is in the table', () => {
    expect(tablePairs(batchTable)).toEqual(documentedPairs(documentedBatchEdges, decidedBatchEdges));
  });
  it('every access edge is the documented lifecycle', () => {
    expect(tablePairs(accessTable)).toEqual(documentedPairs(documentedAccessEdges));
  });
  it('edges of seed 001 that seed 003, mrt-zk or a decision replaced are not in the tables', () => {
    for (const { from, to } of overruledJobEdges) expect(tablePairs(jobTable)).not.toContain(pair(from, to));
    for (const { from, to } of overruledBatchEdges)
      expect(tablePairs(batchTable)).not.toContain(pair(from, to));
    for (const { from, to } of overruledAccessEdges)
      expect(tablePairs(accessTable)).not.toContain(pair(from, to));
  });
  it('every documented edge cites a source in words', () => {
    for (const edge of [...documentedJobEdges, ...documentedBatchEdges, ...documentedAccessEdges]) {
      expect(edge.cites.length, pair(edge.from, edge.to)).toBeGreaterThan(0);
      for (const cite of edge.cites) expect(cite.quote.trim()).not.toBe('');
    }
  });
});
