import { Gauge, Registry } from 'prom-client';
import { batchStates } from '../../machines/index.js';
import type { QueueContext } from '../queue/tree/context.js';
import { createLimit } from '../queue/scan/reader.js';
import { isQueueError } from '../queue/tree/errors.js';
import {
  ACCESS,
  BATCHES,
  COLLECTION_LOCKS,
  QUEUE_NAMES,
  batchChild,
  isBatchId,
  jobStateFolder,
  queueLockPath,
} from '../queue/tree/paths.js';
import { decodeBatchStatus } from '../queue/tree/wire.js';
import { activeOccurrence } from '../queue/windows/schedule.js';
import { listWindows } from '../queue/windows/store.js';
import { isZkError, type SessionState } from '../zk/index.js';
import type { EngineView } from './deps.js';
import {
  processMetrics,
  readFamilies,
  type Counters,
  type Labels,
  type MetricFamily,
  type MetricsProvider,
} from '../telemetry/prometheus.js';

/** What `/metrics` reads. */
export interface MetricsSource {
  queue: QueueContext;
  engine?: EngineView;
  sessionState(): SessionState;
  /** The API's counters, in the app's own registry. */
  counters: Counters;
  /** The clients of `/events` connected now. */
  events?: { readonly size: number; readonly heldBytes: number };
  /** This process's engine and ZooKeeper client metrics, when it runs an engine. */
  metrics?: MetricsProvider;
  /** The alert rules' metrics, when this process evaluates them (src/alerts). */
  alerts?: { readonly registry: Registry };
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

type Samples = { labels?: Labels; value: number }[];

/** A gauge computed at scrape time: `read` gives every sample it has now. */
interface GaugeSpec {
  name: string;
  help: string;
  labelNames?: readonly string[];
  read(source: MetricsSource): Promise<Samples> | Samples;
}

async function childCount(queue: QueueContext, path: string): Promise<number> {
  return (await queue.zk.childCount(path)) ?? 0;
}

/**
 * Jobs per state of the lifecycle the queue runs: the number of refs in each state's folder under
 * `/jobs/states` (one stat each), cheap enough for the dashboard's history to read every sample.
 */
export async function jobDepths(queue: QueueContext): Promise<Record<string, number>> {
  const { lifecycle } = queue;
  const counts = await Promise.all(
    lifecycle.states.map((state) => childCount(queue, jobStateFolder(lifecycle.folderOf(state)))),
  );
  return Object.fromEntries(lifecycle.states.map((state, i) => [state, counts[i] ?? 0]));
}

/** `mrtq_jobs`: {@link jobDepths} as samples. */
async function jobCounts({ queue }: MetricsSource): Promise<Samples> {
  const depths = await jobDepths(queue);
  return queue.lifecycle.states.map((state) => ({ labels: { state }, value: depths[state] ?? 0 }));
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
async function batchCounts({ queue }: MetricsSource): Promise<Samples> {
  const bids = (await queue.zk.exists(BATCHES))
    ? (await queue.zk.getChildren(BATCHES)).filter(isBatchId)
    : [];
  const limit = createLimit(STATUS_READS);
  const statuses = await Promise.all(bids.map((bid) => limit(() => batchStatusOf(queue, bid))));
  const counts = new Map<string, number>([...batchStates, 'invalid'].map((status) => [status, 0]));
  for (const status of statuses) if (status) counts.set(status, (counts.get(status) ?? 0) + 1);
  return [...counts].map(([status, value]) => ({ labels: { status }, value }));
}

async function pausedQueues({ queue }: MetricsSource): Promise<Samples> {
  const paused = await Promise.all(QUEUE_NAMES.map((name) => queue.zk.exists(queueLockPath(name))));
  return QUEUE_NAMES.map((name, i) => ({ labels: { queue: name }, value: paused[i] ? 1 : 0 }));
}

/** Each readable maintenance window: 1 while an occurrence holds its target, else 0. */
async function activeWindows({ queue }: MetricsSource): Promise<Samples> {
  const now = queue.now();
  return (await listWindows(queue)).flatMap(({ name, window }) =>
    window ? [{ labels: { window: name }, value: activeOccurrence(window, now) ? 1 : 0 }] : [],
  );
}

async function accessRequests({ queue }: MetricsSource): Promise<Samples> {
  const [small, large] = await Promise.all(
    ['small', 'large'].map((name) => childCount(queue, `${ACCESS}/${name}`)),
  );
  return [
    { labels: { queue: 'small' }, value: small ?? 0 },
    { labels: { queue: 'large' }, value: large ?? 0 },
  ];
}

/** The queue as the tree holds it right now, and this process's session, work and event clients. */
const GAUGES: readonly GaugeSpec[] = [
  {
    name: 'mrtq_jobs',
    help: 'Jobs per state (refs in /jobs/states/<state>).',
    labelNames: ['state'],
    read: jobCounts,
  },
  {
    name: 'mrtq_batches',
    help: 'Batches per status (read from /batches/<bid>/status; invalid: unreadable).',
    labelNames: ['status'],
    read: batchCounts,
  },
  {
    name: 'mrtq_queue_paused',
    help: 'Whether a queue is paused (/locks/queue/<queue> exists).',
    labelNames: ['queue'],
    read: pausedQueues,
  },
  {
    name: 'mrtq_collections_held',
    help: 'Collections on hold (/locks/collections).',
    read: async ({ queue }) => [{ value: await childCount(queue, COLLECTION_LOCKS) }],
  },
  {
    name: 'mrtq_window_active',
    help: 'Whether a maintenance window holds its target now (1) or not (0), by window (/policies/windows).',
    labelNames: ['window'],
    read: activeWindows,
  },
  {
    name: 'mrtq_access_requests',
    help: 'Access requests per queue (children of /access/<queue>).',
    labelNames: ['queue'],
    read: accessRequests,
  },
  {
    name: 'mrtq_zk_session_state',
    help: "This process's ZooKeeper session state (1 for the current state).",
    labelNames: ['state'],
    read: (source) => {
      const current = source.sessionState();
      return SESSION_STATES.map((state) => ({ labels: { state }, value: state === current ? 1 : 0 }));
    },
  },
  {
    name: 'mrtq_engine_in_flight',
    help: 'Items this process is working on, per consumer.',
    labelNames: ['consumer'],
    read: (source) =>
      Object.entries(source.engine?.running() ?? {}).map(([consumer, value]) => ({
        labels: { consumer },
        value,
      })),
  },
  {
    name: 'mrtq_events_clients',
    help: 'Clients of /events connected to this process.',
    read: (source) => [{ value: source.events?.size ?? 0 }],
  },
  {
    name: 'mrtq_events_held_bytes',
    help: 'Bytes of /events frames held for clients that have not taken them yet (shared by all clients).',
    read: (source) => [{ value: source.events?.heldBytes ?? 0 }],
  },
];

/**
 * A gauge whose samples are read when it is scraped. All of them are read first and set at once,
 * so two scrapes at the same time each see a whole set.
 */
function scrapedGauge(spec: GaugeSpec, source: MetricsSource, registry: Registry): void {
  const gauge: Gauge = new Gauge({
    name: spec.name,
    help: spec.help,
    labelNames: spec.labelNames ?? [],
    registers: [registry],
    collect: async () => {
      const samples = await spec.read(source);
      gauge.reset();
      for (const sample of samples) gauge.set(sample.labels ?? {}, sample.value);
    },
  });
}

const gaugesBySource = new WeakMap<MetricsSource, Registry>();

function gaugesOf(source: MetricsSource): Registry {
  let registry = gaugesBySource.get(source);
  if (!registry) {
    registry = new Registry();
    for (const spec of GAUGES) scrapedGauge(spec, source, registry);
    gaugesBySource.set(source, registry);
  }
  return registry;
}

/**
 * Everything `/metrics` exposes, in one registry made for this scrape: the source's gauges, the
 * API's counters, the engine's metrics, the alert rules' and the process's. Each part keeps its own registry (one
 * per app or engine), so apps in one process never share a value.
 */
function scrapeRegistry(source: MetricsSource): Registry {
  const parts = [gaugesOf(source), source.counters.registry];
  if (source.metrics) parts.push(source.metrics.registry);
  if (source.alerts) parts.push(source.alerts.registry);
  return Registry.merge([...parts, processMetrics()]);
}

/**
 * Every metric `/metrics` exposes, as families (the dashboard's counts). Counting batches reads
 * one node per batch, so a scrape of a queue with 100,000 batches costs that many small reads
 * (pipelined, {@link STATUS_READS} at a time).
 */
export function collectMetrics(source: MetricsSource): Promise<MetricFamily[]> {
  return readFamilies(scrapeRegistry(source));
}

/** The body of `/metrics`: prom-client's text format of {@link collectMetrics}' metrics. */
export function metricsText(source: MetricsSource): Promise<string> {
  return scrapeRegistry(source).metrics();
}
