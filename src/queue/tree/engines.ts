import { randomBytes } from 'node:crypto';
import { filter, type Subscription } from 'rxjs';
import { isZkError } from '../../zk/index.js';
import type { QueueContext } from './context.js';
import { isQueueError } from './errors.js';
import { decodeJsonObject, encodeJson } from './wire.js';

/**
 * Engine processes announce themselves under `/engines`, one ephemeral node each, so operators
 * (the dashboard, `GET /engines`) see which processes run, what each serves, and whose session
 * holds a lock. The node lives exactly as long as the process's ZooKeeper session; the queue's
 * own consistency rules (doctor, cleanup) never read it.
 */
export const ENGINES = '/engines';

/** What an engine process says about itself, in `/engines/<id>` (JSON). */
export interface EngineInfo {
  /** The node's name: `<host>-<pid>-<random>`. */
  id: string;
  host: string;
  pid: number;
  /** The package version it runs. */
  version: string;
  /** Job states it consumes. */
  states: string[];
  /** Batch work it does (expand, report, update-report). */
  batchWork: string[];
  /** `standalone` or `merritt` (MRTQ_DEPLOYMENT); absent from a node written by an older engine. */
  deployment?: string;
  /** The job states its deployment leaves to Merritt's services, with the service (machines/deployment.ts). */
  leftToMerritt?: { state: string; service: string }[];
  /** The access queues it consumes; absent from a node written by an older engine. */
  accessQueues?: string[];
  /** The access queues its deployment leaves to Merritt's storage service (machines/deployment.ts). */
  accessLeftToMerritt?: { queue: string; service: string }[];
  /** ISO time the process started its engine. */
  startedAt: string;
  /** Base URL of its HTTP API, when it serves one. */
  httpUrl?: string;
  /** Its ZooKeeper session (lowercase hex, as a lock node's `ephemeralOwner`). */
  sessionId: string;
}

/** What the process gives; the id and session are added here. */
export type EngineAnnouncement = Omit<EngineInfo, 'id' | 'sessionId'>;

/** A registered engine: its id, and close() to remove its node (on a clean stop). */
export interface EngineRegistration {
  id: string;
  close(): Promise<void>;
}

/** `<host>-<pid>-<6 hex>`, reduced to characters a node name may safely hold. */
export function engineId(host: string, pid: number): string {
  const safeHost = host.replace(/[^A-Za-z0-9._-]+/g, '_').slice(0, 100) || 'host';
  return `${safeHost}-${pid}-${randomBytes(3).toString('hex')}`;
}

const enginePath = (id: string): string => `${ENGINES}/${id}`;

/**
 * Writes the node for the current session. A node left by an earlier session of this process
 * (not yet expired on the server) is replaced; one already ours (a create whose answer was
 * lost) is kept.
 */
async function announce(ctx: QueueContext, id: string, announcement: EngineAnnouncement): Promise<string> {
  const sessionId = ctx.zk.sessionId;
  const path = enginePath(id);
  const data = encodeJson({ id, ...announcement, sessionId });
  await ctx.zk.mkdirp(ENGINES);
  try {
    await ctx.zk.create(path, data, 'ephemeral');
    return sessionId;
  } catch (err) {
    if (!isZkError(err, 'NODE_EXISTS')) throw err;
  }
  const stat = await ctx.zk.exists(path);
  if (stat && stat.ephemeralOwner !== sessionId) {
    await ctx.zk.multi([
      { op: 'delete', path, version: stat.version },
      { op: 'create', path, data, mode: 'ephemeral' },
    ]);
  }
  return sessionId;
}

/**
 * Registers this engine process: an ephemeral `/engines/<id>` holding {@link EngineInfo}. When
 * the session is replaced (expired, then a new one), the node went with the old session: it is
 * written again with the new session id. A failed re-registration is logged, and tried again
 * with the next new session.
 */
export async function registerEngine(
  ctx: QueueContext,
  announcement: EngineAnnouncement,
  id: string = engineId(announcement.host, announcement.pid),
): Promise<EngineRegistration> {
  let registered = await announce(ctx, id, announcement);
  let pending: Promise<void> = Promise.resolve();
  const following: Subscription = ctx.zk.session$
    .pipe(filter((event) => event.state === 'connected' && event.sessionId !== registered))
    .subscribe(() => {
      pending = pending
        .then(async () => {
          if (ctx.zk.sessionId === registered) return;
          registered = await announce(ctx, id, announcement);
          ctx.log.info({ engine: id, sessionId: registered }, 'engine registered again (new session)');
        })
        .catch((err: unknown) => ctx.log.warn({ engine: id, err }, 'could not register the engine again'));
    });
  ctx.log.info({ engine: id, sessionId: registered }, 'engine registered');
  return {
    id,
    async close() {
      following.unsubscribe();
      await pending;
      if (ctx.zk.sessionId !== registered) return; // the node went with its session
      await removeCleanly(ctx, id);
    },
  };
}

/** Clean stops `/engines`' data remembers, newest last. */
const STOPS_KEPT = 50;
const STOP_ATTEMPTS = 5;

/** The clean stops `/engines`' data names (JSON `{"stopped":[{"id","at"}]}`); none when unreadable. */
function decodeStops(data: Buffer | undefined): { id: string; at: string }[] {
  try {
    const { stopped } = decodeJsonObject(ENGINES, data);
    if (!Array.isArray(stopped)) return [];
    return stopped.flatMap((entry: unknown) => {
      const { id, at } = (entry ?? {}) as Record<string, unknown>;
      return typeof id === 'string' && typeof at === 'string' ? [{ id, at }] : [];
    });
  } catch {
    return [];
  }
}

/**
 * Removes the engine's node and names it in `/engines`' data in one multi, so that whoever sees
 * the node go can tell a clean stop from a process that died (the alert rule `engine_gone`,
 * src/alerts). A node already gone is fine; without `/engines`' data to write (a tree another
 * tool made), or should it keep changing under it, the node is removed alone.
 */
async function removeCleanly(ctx: QueueContext, id: string): Promise<void> {
  for (let attempt = 0; attempt < STOP_ATTEMPTS; attempt++) {
    try {
      const { data, stat } = await ctx.zk.getData(ENGINES);
      const stopped = [
        ...decodeStops(data).filter((stop) => stop.id !== id),
        { id, at: ctx.now().toISOString() },
      ].slice(-STOPS_KEPT);
      await ctx.zk.multi([
        { op: 'set', path: ENGINES, data: encodeJson({ stopped }), version: stat.version },
        { op: 'delete', path: enginePath(id) },
      ]);
      return;
    } catch (err) {
      if (isZkError(err, 'NO_NODE')) break; // `/engines` or the node itself: the delete below tells
      if (!isZkError(err, 'BAD_VERSION')) throw err;
    }
  }
  try {
    await ctx.zk.delete(enginePath(id));
  } catch (err) {
    if (!isZkError(err, 'NO_NODE')) throw err;
  }
}

/** The engines that removed their node on a clean stop (the last {@link STOPS_KEPT}), by id. */
export async function cleanlyStoppedEngines(ctx: QueueContext): Promise<Set<string>> {
  try {
    return new Set(decodeStops((await ctx.zk.getData(ENGINES)).data).map((stop) => stop.id));
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return new Set();
    throw err;
  }
}

function asEngine(id: string, data: Record<string, unknown>, owner: string): EngineInfo {
  const text = (key: string): string => (typeof data[key] === 'string' ? data[key] : '');
  const list = (key: string): string[] =>
    Array.isArray(data[key]) ? data[key].filter((v): v is string => typeof v === 'string') : [];
  const info: EngineInfo = {
    id,
    host: text('host'),
    pid: typeof data.pid === 'number' ? data.pid : 0,
    version: text('version'),
    states: list('states'),
    batchWork: list('batchWork'),
    startedAt: text('startedAt'),
    // The node's owner is the truth; the data says the same unless written by another tool.
    sessionId: owner !== '0' ? owner : text('sessionId'),
  };
  const httpUrl = text('httpUrl');
  const deployment = text('deployment');
  const left = Array.isArray(data.leftToMerritt) ? data.leftToMerritt.flatMap(leftEntry) : [];
  const accessLeft = Array.isArray(data.accessLeftToMerritt)
    ? data.accessLeftToMerritt.flatMap(accessLeftEntry)
    : [];
  return {
    ...info,
    ...(httpUrl ? { httpUrl } : {}),
    ...(deployment ? { deployment, leftToMerritt: left } : {}),
    ...(Array.isArray(data.accessQueues)
      ? { accessQueues: list('accessQueues'), accessLeftToMerritt: accessLeft }
      : {}),
  };
}

function leftEntry(entry: unknown): { state: string; service: string }[] {
  if (typeof entry !== 'object' || entry === null) return [];
  const { state, service } = entry as Record<string, unknown>;
  return typeof state === 'string' && typeof service === 'string' ? [{ state, service }] : [];
}

function accessLeftEntry(entry: unknown): { queue: string; service: string }[] {
  if (typeof entry !== 'object' || entry === null) return [];
  const { queue, service } = entry as Record<string, unknown>;
  return typeof queue === 'string' && typeof service === 'string' ? [{ queue, service }] : [];
}

/** The engine processes registered now, by id. A node that vanishes while read is left out. */
export async function listEngines(ctx: QueueContext): Promise<EngineInfo[]> {
  let ids: string[];
  try {
    ids = (await ctx.zk.getChildren(ENGINES)).sort();
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return [];
    throw err;
  }
  const reads = await Promise.all(
    ids.map(async (id) => {
      try {
        const { data, stat } = await ctx.zk.getData(enginePath(id));
        return asEngine(id, decodeJsonObject(enginePath(id), data), stat.ephemeralOwner);
      } catch (err) {
        if (isZkError(err, 'NO_NODE')) return undefined;
        if (isQueueError(err)) return asEngine(id, {}, '0');
        throw err;
      }
    }),
  );
  return reads.filter((engine) => engine !== undefined);
}

/** The engine whose session owns a lock (`ephemeralOwner`), when one is registered. */
export function engineOfSession(engines: readonly EngineInfo[], sessionId: string): EngineInfo | undefined {
  const normalise = (id: string): string =>
    id
      .toLowerCase()
      .replace(/^0x/, '')
      .replace(/^0+(?=.)/, '');
  const wanted = normalise(sessionId);
  return engines.find((engine) => normalise(engine.sessionId) === wanted);
}
