import type { QueueContext } from '../../../src/queue/tree/context.js';
import { basename } from '../../../src/zk/index.js';

/**
 * Queue items as another tool might leave them: malformed, half-written, dangling, huge. The
 * chaos scenario "bad data" writes them next to a normal batch and checks that the engine
 * leaves each one alone (or fails it with a clear message) while every good job completes.
 */
export interface BadItem {
  /** What doctor names the problem by (`DoctorProblem.item`): a job or batch id, or a path. */
  item: string;
  what: string;
  /** Nodes whose data and version must be left exactly as written. */
  nodes: string[];
  /** True when a consumer of the engine reads it (so it is expected in the logs). */
  seenByEngine: boolean;
}

/** Items written to work normally in spite of their size. */
export interface HugeButValid {
  /** A pending batch whose submission carries ~900 KB of extra JSON (payload `sim:<jobs>`). */
  hugeSubmission: { bid: string; jobs: number };
  /** A processing batch written node by node (mrt-zk style) with one job whose configuration is ~900 KB. */
  hugeConfiguration: { bid: string; jobs: number };
  /** A pending batch with a payload the simulated steps cannot expand: it must fail with the reason. */
  unexpandable: { bid: string };
}

/** Just under ZooKeeper's 1 MB node limit (jute.maxbuffer 0xfffff), with room for the rest of the JSON. */
const HUGE = 900 * 1024;
const HUGE_TEXT = 'x'.repeat(HUGE);
const TIME = 'Sat Nov 21 09:34:25 UTC 2026';

const status = (state: string) =>
  JSON.stringify({ status: state, last_successful_status: null, last_modified: TIME, retry_count: 0 });
const configuration = (extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    profile_name: 'tool',
    submitter: 'tool',
    payload_url: 'sim:object/0',
    payload_type: 'object_manifest',
    ...extra,
  });
const submission = (payload: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    profile_name: 'tool',
    submitter: 'tool',
    payload_url: payload,
    type: 'manifest',
    ...extra,
  });

type JobNodes = Partial<Record<'status' | 'bid' | 'configuration' | 'priority', string | Buffer>>;

/** A writer of raw nodes, as a tool that knows the layout but not the rules would write them. */
class ToolWriter {
  constructor(private readonly ctx: QueueContext) {}

  async sequential(prefix: '/jobs/jid' | '/batches/bid'): Promise<string> {
    return basename(await this.ctx.zk.create(prefix, null, 'persistent_sequential'));
  }

  async job(nodes: JobNodes, refs: string[]): Promise<{ jid: string; nodes: string[] }> {
    const jid = await this.sequential('/jobs/jid');
    const written: string[] = [];
    for (const [key, data] of Object.entries(nodes)) {
      const path = `/jobs/${jid}/${key}`;
      await this.ctx.zk.create(path, data);
      written.push(path);
    }
    for (const ref of refs) {
      const path = ref.replace('JID', jid);
      await this.ctx.zk.mkdirp(path);
      written.push(path);
    }
    return { jid, nodes: written };
  }

  /**
   * A batch's nodes. With `locked`, its lock is taken first and kept (release it with `unlock`),
   * as mrt-zk expands a batch: a processing batch whose lock is free and whose batch-processing
   * folder is empty counts as expanded with every job done, and is reported.
   */
  async batch(
    nodes: Partial<Record<'status' | 'submission', string | Buffer>>,
    locked = false,
  ): Promise<{ bid: string; nodes: string[] }> {
    const bid = await this.sequential('/batches/bid');
    if (locked) await this.ctx.zk.create(`/batches/${bid}/lock`, null, 'ephemeral');
    const written: string[] = [];
    for (const [key, data] of Object.entries(nodes)) {
      const path = `/batches/${bid}/${key}`;
      await this.ctx.zk.create(path, data);
      written.push(path);
    }
    return { bid, nodes: written };
  }

  async unlock(bid: string): Promise<void> {
    await this.ctx.zk.delete(`/batches/${bid}/lock`);
  }
}

/**
 * Writes every kind of bad item once (and the huge-but-valid ones) into the queue of `ctx`,
 * as another tool would: node by node, no multi, no locks.
 */
export async function writeBadItems(ctx: QueueContext): Promise<{ bad: BadItem[]; valid: HugeButValid }> {
  const tool = new ToolWriter(ctx);
  const bad: BadItem[] = [];
  // The batch the tool's broken jobs claim to belong to: processing, expanded by the tool.
  const holder = await tool.batch(
    {
      status: JSON.stringify({ status: 'Processing', last_modified: TIME }),
      submission: submission('https://example.org/tool.checkm'),
    },
    true,
  );
  await ctx.zk.mkdirp(`/batches/${holder.bid}/states/batch-processing`);
  const inHolder = `/batches/${holder.bid}/states/batch-processing/JID`;
  const pendingRef = '/jobs/states/pending/05-JID';
  const sound = { bid: holder.bid, configuration: configuration(), priority: '5' };
  const job = async (what: string, nodes: JobNodes, refs = [pendingRef, inHolder], seen = true) => {
    const { jid, nodes: written } = await tool.job(nodes, refs);
    bad.push({ item: jid, what, nodes: written, seenByEngine: seen });
    return jid;
  };

  await job('status is not JSON', { ...sound, status: '{"status": "Pending", ' });
  await job('status names no job state', { ...sound, status: status('Frobnicating') });
  await job('no status node', { bid: holder.bid, configuration: configuration(), priority: '5' });
  await job('no bid node', { status: status('Pending'), configuration: configuration(), priority: '5' }, [
    pendingRef,
  ]);
  await job('no configuration node', { status: status('Pending'), bid: holder.bid, priority: '5' });
  await job('900 KB configuration that is not JSON', {
    ...sound,
    status: status('Pending'),
    configuration: `{"profile_name": "tool", "notes": "${HUGE_TEXT}`,
  });
  await job('priority is not a number', { ...sound, status: status('Pending'), priority: 'high' });
  await job('status Downloading, ref in pending', { ...sound, status: status('Downloading') });
  const lost = await job(
    'ref in a folder that names no state',
    { ...sound, status: status('Pending') },
    ['/jobs/states/frobnicating/05-JID', inHolder],
    false,
  );
  await tool.unlock(holder.bid);
  bad.push({
    item: '/jobs/states/frobnicating',
    what: `state folder that names no state (holds ${lost})`,
    nodes: [`/jobs/states/frobnicating/05-${lost}`],
    seenByEngine: false,
  });
  for (const [state, jid] of [
    ['pending', 'jid9999999990'],
    ['downloading', 'jid9999999991'],
  ] as const) {
    const path = `/jobs/states/${state}/05-${jid}`;
    await ctx.zk.create(path);
    // Taken for a job that has just gone: skipped without a word.
    bad.push({
      item: jid,
      what: `ref in ${state} to a job that does not exist`,
      nodes: [path],
      seenByEngine: false,
    });
  }
  const badName = '/jobs/states/pending/not-a-ref';
  await ctx.zk.create(badName, 'tool notes');
  bad.push({
    item: badName,
    what: 'child of a state folder that is no ref',
    nodes: [badName],
    seenByEngine: false,
  });

  const batch = async (what: string, nodes: Parameters<ToolWriter['batch']>[0], seen: boolean) => {
    const written = await tool.batch(nodes);
    bad.push({ item: written.bid, what, nodes: written.nodes, seenByEngine: seen });
  };
  // Without a readable status no consumer is offered the batch; a pending one is, and skipped.
  await batch(
    'status is not JSON',
    { status: '<status>Pending</status>', submission: submission('sim:1') },
    false,
  );
  await batch(
    'status names no batch state',
    { status: status('Exploding'), submission: submission('sim:1') },
    false,
  );
  await batch(
    'submission is garbage',
    { status: status('Pending'), submission: Buffer.from([0, 159, 146, 150, 255]) },
    true,
  );
  await batch('no submission node', { status: status('Pending') }, true);

  const hugeSubmission = await tool.batch({
    status: status('Pending'),
    submission: submission('sim:3', { notes: HUGE_TEXT }),
  });
  const hugeJobBatch = await tool.batch(
    {
      status: JSON.stringify({ status: 'Processing', last_modified: TIME }),
      submission: submission('https://example.org/huge.checkm'),
    },
    true,
  );
  await ctx.zk.mkdirp(`/batches/${hugeJobBatch.bid}/states/batch-processing`);
  await tool.job(
    {
      bid: hugeJobBatch.bid,
      configuration: configuration({ manifest_position: 0, notes: HUGE_TEXT }),
      priority: '5',
      status: status('Pending'),
    },
    [pendingRef, `/batches/${hugeJobBatch.bid}/states/batch-processing/JID`],
  );
  await tool.unlock(hugeJobBatch.bid);
  const unexpandable = await tool.batch({ status: status('Pending'), submission: submission('sim:lots') });
  return {
    bad,
    valid: {
      hugeSubmission: { bid: hugeSubmission.bid, jobs: 3 },
      hugeConfiguration: { bid: hugeJobBatch.bid, jobs: 1 },
      unexpandable: { bid: unexpandable.bid },
    },
  };
}

/** Data and version of each node (`missing` for none): what the engine must leave as it is. */
export async function snapshot(ctx: QueueContext, paths: readonly string[]): Promise<Map<string, string>> {
  const entries = await Promise.all(
    paths.map(async (path) => {
      const read = await ctx.zk.getData(path).catch(() => undefined);
      const value = read
        ? `v${read.stat.version} ${read.data?.length ?? 0} bytes ${read.data?.subarray(0, 64).toString('hex') ?? ''}`
        : 'missing';
      return [path, value] as const;
    }),
  );
  return new Map(entries);
}
