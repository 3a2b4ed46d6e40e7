import { getHeapStatistics } from 'node:v8';
import { batchStates } from '../../machines/index.js';
import type { QueueContext } from '../queue/context.js';
import { createLimit } from '../queue/doctor-reader.js';
import { isQueueError } from '../queue/errors.js';
import {
  ACCESS,
  BATCHES,
  COLLECTION_LOCKS,
  QUEUE_NAMES,
  batchChild,
  isBatchId,
  jobStateFolder,
  queueLockPath,
} from '../queue/paths.js';
import { decodeBatchStatus } from '../queue/wire.js';
import { isZkError, type SessionState } from '../zk/index.js';
import type { EngineView } from './deps.js';
import type { Counters, MetricFamily } from '../telemetry/prometheus.js';

/** What `/metrics` reads. */
export interface MetricsSource {
  queue: QueueContext;
  engine?: EngineView;
  sessionState(): SessionState;
  counters: Counters;
  /** The clients of `/events` connected now. */
  events?: { readonly size: number; readonly heldBytes: number };
  /** This process's engine and ZooKeeper client metrics, when it runs an engine. */
  metrics?: { toFamilies(): MetricFamily[] };
}

const SESSION_STATES: readonly SessionState[] = [
  'connected',
  'disconnected',
  'suspended',
  'expired',
  'closed',
];
/** Batch status reads in flight while counting (one small read per batch). */
const STATUS_READS = 64;

const gauge = (name: string, help: string, samples: MetricFamily['samples']): MetricFamily => ({
  name,
  help,
  type: 'gauge',
  samples,
});

async function childCount(queue: QueueContext, path: string): Promise<number> {
  return (await queue.zk.exists(path))?.numChildren ?? 0;
}

/**
 * Jobs per state of the lifecycle the queue runs: the number of refs in each state's folder under
 * `/jobs/states` (one stat each).
 */
async function jobCounts(queue: QueueContext): Promise<MetricFamily> {
  const lifecycle = queue.lifecycle;
  const { states } = lifecycle;
  const counts = await Promise.all(
    states.map((state) => childCount(queue, jobStateFolder(lifecycle.folderOf(state)))),
  );
  return gauge(
    'mrtq_jobs',
    'Jobs per state (refs in /jobs/states/<state>).',
    states.map((state, i) => ({ labels: { state }, value: counts[i] ?? 0 })),
  );
}

async function batchStatusOf(queue: QueueContext, bid: string): Promise<string | undefined> {
  const path = batchChild(bid, 'status');
  try {
    return decodeBatchStatus(path, (await queue.zk.getData(path)).data).status;
  } catch (err) {
    if (isQueueError(err) || isZkError(err, 'NO_NODE')) return 'invalid';
    throw err;
  }
}

/** Batches per status: every batch's status node is read (status `invalid` when it cannot be). */
async function batchCounts(queue: QueueContext): Promise<MetricFamily> {
  const bids = (await queue.zk.exists(BATCHES))
    ? (await queue.zk.getChildren(BATCHES)).filter(isBatchId)
    : [];
  const limit = createLimit(STATUS_READS);
  const statuses = await Promise.all(bids.map((bid) => limit(() => batchStatusOf(queue, bid))));
  const counts = new Map<string, number>([...batchStates, 'invalid'].map((status) => [status, 0]));
  for (const status of statuses) if (status) counts.set(status, (counts.get(status) ?? 0) + 1);
  return gauge(
    'mrtq_batches',
    'Batches per status (read from /batches/<bid>/status; invalid: unreadable).',
    [...counts].map(([status, value]) => ({ labels: { status }, value })),
  );
}

async function holdGauges(queue: QueueContext): Promise<MetricFamily[]> {
  const paused = await Promise.all(QUEUE_NAMES.map((name) => queue.zk.exists(queueLockPath(name))));
  const [held, small, large] = await Promise.all(
    [COLLECTION_LOCKS, `${ACCESS}/small`, `${ACCESS}/large`].map((path) => childCount(queue, path)),
  );
  return [
    gauge(
      'mrtq_queue_paused',
      'Whether a queue is paused (/locks/queue/<queue> exists).',
      QUEUE_NAMES.map((name, i) => ({ labels: { queue: name }, value: paused[i] ? 1 : 0 })),
    ),
    gauge('mrtq_collections_held', 'Collections on hold (/locks/collections).', [{ value: held ?? 0 }]),
    gauge('mrtq_access_requests', 'Access requests per queue (children of /access/<queue>).', [
      { labels: { queue: 'small' }, value: small ?? 0 },
      { labels: { queue: 'large' }, value: large ?? 0 },
    ]),
  ];
}

/** This process's memory, named as Prometheus client libraries name it. */
function memoryGauges(): MetricFamily[] {
  const memory = process.memoryUsage();
  return [
    gauge('process_resident_memory_bytes', 'Resident memory of this process.', [{ value: memory.rss }]),
    gauge('nodejs_heap_size_total_bytes', 'V8 heap reserved by this process.', [{ value: memory.heapTotal }]),
    gauge('nodejs_heap_size_used_bytes', 'V8 heap in use by this process.', [{ value: memory.heapUsed }]),
    gauge('nodejs_heap_size_limit_bytes', 'The V8 heap limit this process was started with.', [
      { value: getHeapStatistics().heap_size_limit },
    ]),
    gauge('nodejs_external_memory_bytes', 'Memory of this process outside the V8 heap (buffers).', [
      { value: memory.external },
    ]),
  ];
}

function processGauges(source: MetricsSource): MetricFamily[] {
  const current = source.sessionState();
  const running = Object.entries(source.engine?.running() ?? {});
  return [
    ...memoryGauges(),
    gauge(
      'mrtq_zk_session_state',
      "This process's ZooKeeper session state (1 for the current state).",
      SESSION_STATES.map((state) => ({ labels: { state }, value: state === current ? 1 : 0 })),
    ),
    gauge(
      'mrtq_engine_in_flight',
      'Items this process is working on, per consumer.',
      running.map(([consumer, value]) => ({ labels: { consumer }, value })),
    ),
    gauge('mrtq_events_clients', 'Clients of /events connected to this process.', [
      { value: source.events?.size ?? 0 },
    ]),
    gauge(
      'mrtq_events_held_bytes',
      'Bytes of /events frames held for clients that have not taken them yet (shared by all clients).',
      [{ value: source.events?.heldBytes ?? 0 }],
    ),
  ];
}

/**
 * Every metric `/metrics` exposes: the queue as the tree holds it right now (jobs per state,
 * batches per status, holds), this process (session, in-flight work) and its counters. Counting
 * batches reads one node per batch, so a scrape of a queue with 100,000 batches costs that many
 * small reads (pipelined, {@link STATUS_READS} at a time).
 */
export async function collectMetrics(source: MetricsSource): Promise<MetricFamily[]> {
  const [jobs, batches, holds] = await Promise.all([
    jobCounts(source.queue),
    batchCounts(source.queue),
    holdGauges(source.queue),
  ]);
  return [
    jobs,
    batches,
    ...holds,
    ...processGauges(source),
    ...source.counters.toFamilies(),
    ...(source.metrics?.toFamilies() ?? []),
  ];
}
