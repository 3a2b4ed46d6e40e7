import { listEngines } from '../../queue/tree/engines.js';
import { QueueError } from '../../queue/tree/errors.js';
import { listJobs, showItem } from '../../views/listing/listing.js';
import { QUEUE_NAMES } from '../../queue/tree/paths.js';
import { heldCollections } from '../../queue/locks/queue-pause.js';
import type { MetricFamily } from '../../telemetry/prometheus.js';
import type { ApiContext, RouteSpec } from '../deps.js';
import { describeLifecycles, lifecycleViews, type LifecycleName } from '../lifecycles.js';
import { collectMetrics } from '../metrics.js';
import {
  engineList,
  lifecycleBody,
  lifecycleParams,
  overviewBody,
  params,
  timelineBody,
} from '../schemas.js';
import { layoutDiagram, type DiagramLayout } from '../dashboard/diagram-layout.js';
import { renderDiagram } from '../dashboard/diagram-svg.js';
import { deriveTimeline, TIMELINE_NOTE } from '../dashboard/timeline.js';

/** Jobs a timeline reads at most (the largest page of `GET /jobs`). */
export const TIMELINE_JOBS = 500;

/** `{label value: sample value}` of one gauge family from `/metrics`' own computation. */
function countsOf(families: readonly MetricFamily[], name: string, label: string): Record<string, number> {
  const family = families.find((f) => f.name === name);
  return Object.fromEntries((family?.samples ?? []).map((s) => [s.labels?.[label] ?? '', s.value]));
}

/** What the dashboard's overview shows; counts are those `/metrics` exposes, read now. */
async function overview(ctx: ApiContext) {
  const [families, engines, collectionsHeld] = await Promise.all([
    collectMetrics(ctx),
    listEngines(ctx.queue),
    heldCollections(ctx.queue),
  ]);
  const paused = countsOf(families, 'mrtq_queue_paused', 'queue');
  return {
    session: ctx.sessionState(),
    jobs: countsOf(families, 'mrtq_jobs', 'state'),
    batches: countsOf(families, 'mrtq_batches', 'status'),
    accessRequests: countsOf(families, 'mrtq_access_requests', 'queue'),
    queues: QUEUE_NAMES.map((name) => ({ name, paused: paused[name] === 1 })),
    collectionsHeld,
    engines,
  };
}

function diagramRoute(ctx: ApiContext): RouteSpec {
  const views = lifecycleViews(ctx.queue.lifecycle);
  const layouts = new Map<LifecycleName, DiagramLayout>();
  return {
    method: 'GET',
    url: '/machines/:lifecycle/diagram',
    tag: 'dashboard',
    summary: 'A lifecycle drawn from its transition table (SVG), with the current count on each state',
    produces: 'image/svg+xml',
    schema: { params: lifecycleParams },
    handler: async (request, reply) => {
      const name = (request.params as { lifecycle: LifecycleName }).lifecycle;
      const view = views[name];
      let layout = layouts.get(name);
      if (!layout) layouts.set(name, (layout = layoutDiagram(view.table, view.rows)));
      const { counted } = view;
      const counts = counted ? countsOf(await collectMetrics(ctx), counted.family, counted.label) : undefined;
      const svg = renderDiagram(layout, { id: name, title: view.title, counts });
      return reply.type('image/svg+xml; charset=utf-8').send(svg);
    },
  };
}

function timelineRoute(ctx: ApiContext): RouteSpec {
  return {
    method: 'GET',
    url: '/batches/:id/timeline',
    tag: 'batches',
    summary:
      "A batch's timeline derived from stored timestamps (submission, last status writes, report); " +
      'ZooKeeper keeps no history, so earlier transitions are not in it',
    schema: { params: params.id, response: { 200: timelineBody } },
    handler: async (request) => {
      const { id } = request.params as { id: string };
      const item = await showItem(ctx.queue, id);
      if (item.kind !== 'batch') throw new QueueError('NOT_FOUND', `${id} is not a batch`, id);
      const { batch, report } = item;
      const jobs = await listJobs(ctx.queue, { batch: batch.batchId }, { offset: 0, limit: TIMELINE_JOBS });
      const submissionDate = batch.submission.submissionDate;
      const timeline = deriveTimeline({
        bid: batch.batchId,
        status: batch.status,
        lastModified: batch.lastModified,
        submissionDate: typeof submissionDate === 'string' ? submissionDate : undefined,
        report,
        jobs: jobs.items,
      });
      return {
        bid: batch.batchId,
        note: TIMELINE_NOTE,
        ...timeline,
        jobs: { read: jobs.items.length, total: jobs.total },
      };
    },
  };
}

/** What the dashboard needs beyond the items: overview, engine processes, lifecycles, diagrams, timelines. */
export function dashboardRoutes(ctx: ApiContext): RouteSpec[] {
  const description = describeLifecycles(ctx.queue.lifecycle);
  return [
    {
      method: 'GET',
      url: '/overview',
      tag: 'dashboard',
      summary:
        'The queue at a glance: jobs per state, batches per status, paused queues, held collections, ' +
        "this server's ZooKeeper session, engine processes",
      schema: { response: { 200: overviewBody } },
      handler: () => overview(ctx),
    },
    {
      method: 'GET',
      url: '/engines',
      tag: 'dashboard',
      summary:
        'The engine processes registered now (/engines): host, pid, version, what each serves, ' +
        "its deployment and the states it leaves to Merritt's services",
      schema: { response: { 200: engineList } },
      handler: async () => ({ items: await listEngines(ctx.queue) }),
    },
    {
      method: 'GET',
      url: '/lifecycle',
      tag: 'dashboard',
      summary:
        'The states of the job lifecycle this queue runs (wire name, folder, whether and which step runs), ' +
        'and of the batch and access lifecycles: what clients list and filter by',
      schema: { response: { 200: lifecycleBody } },
      handler: () => Promise.resolve(description),
    },
    diagramRoute(ctx),
    timelineRoute(ctx),
  ];
}
