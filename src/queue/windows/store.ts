import { isZkError } from '../../zk/index.js';
import { WINDOWS, decodePolicy, writePolicy } from '../policies/store.js';
import type { QueueContext } from '../tree/context.js';
import { QueueError } from '../tree/errors.js';
import { checkSafeId } from '../tree/safe-id.js';
import { occurrenceAt, occurrenceToSkip, type Occurrence } from './schedule.js';
import { formatDuration } from '../../config/duration.js';
import {
  durationMsOf,
  toNode,
  toWindow,
  windowNodeSchema,
  windowProblems,
  type MaintenanceWindow,
  type WindowNode,
  type WindowProblem,
} from './window.js';

/** A window as read: decoded, or the reason it could not be (`problem`), and the node's version. */
export interface StoredWindow {
  name: string;
  window?: MaintenanceWindow;
  problem?: string;
  version: number;
}

/** What an operator sets (`PUT /windows/:name`, `mrtq window set`); the engines' own fields are kept. */
export type WindowInput = Pick<WindowNode, 'cron' | 'duration' | 'timezone' | 'target' | 'reason' | 'skip'>;

/** `/policies/windows/<name>`; BAD_REQUEST for a name that cannot be a node's. */
export function windowPath(name: string): string {
  checkSafeId('window name', name);
  return `${WINDOWS}/${name}`;
}

/** A window node's data decoded, or why it cannot be. */
export function decodeWindow(name: string, data: Buffer | undefined, version: number): StoredWindow {
  let problem: string | undefined;
  const node = decodePolicy<WindowNode | undefined>(data, windowNodeSchema, undefined, (message) => {
    problem = message;
  });
  if (node) return { name, window: toWindow(node), version };
  return { name, problem: problem ?? 'the node has no data', version };
}

/** Every window, by name; none when `/policies/windows` does not exist. */
export async function listWindows(ctx: QueueContext): Promise<StoredWindow[]> {
  let names: string[];
  try {
    names = (await ctx.zk.getChildren(WINDOWS)).sort();
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return [];
    throw err;
  }
  const nodes = await ctx.zk.getDataMany(names.map((name) => `${WINDOWS}/${name}`));
  return names.flatMap((name, i) => {
    const node = nodes[i];
    return node ? [decodeWindow(name, node.data, node.stat.version)] : [];
  });
}

/** One window; NOT_FOUND when there is none of that name. */
export async function getWindow(ctx: QueueContext, name: string): Promise<StoredWindow> {
  const path = windowPath(name);
  try {
    const { data, stat } = await ctx.zk.getData(path);
    return decodeWindow(name, data, stat.version);
  } catch (err) {
    if (isZkError(err, 'NO_NODE'))
      throw new QueueError('NOT_FOUND', `no maintenance window "${name}"`, path, { cause: err });
    throw err;
  }
}

async function currentOrAbsent(ctx: QueueContext, name: string): Promise<StoredWindow | undefined> {
  try {
    return await getWindow(ctx, name);
  } catch (err) {
    if (err instanceof QueueError && err.code === 'NOT_FOUND') return undefined;
    throw err;
  }
}

/**
 * Everything wrong with a node about to be written, each naming its field (the API answers 400
 * with the first field): see {@link windowProblems}.
 */
export function nodeProblems(node: WindowNode, now: Date): WindowProblem[] {
  const parsed = windowNodeSchema.safeParse(node);
  if (parsed.success) return windowProblems(parsed.data, now);
  return parsed.error.issues.map((i) => ({
    field: i.path.join('.') || '(top)',
    message: i.message,
  }));
}

/** What an operator's input would be written as (no engine bookkeeping), for checking it first. */
export function inputNode(input: WindowInput): WindowNode {
  return merged(input, undefined);
}

/** BAD_REQUEST naming every field that is wrong (`cron: "x" is not a cron expression…`). */
export function checkWindow(node: WindowNode, now: Date): void {
  const problems = nodeProblems(node, now);
  if (problems.length > 0)
    throw new QueueError('BAD_REQUEST', problems.map((p) => `${p.field}: ${p.message}`).join('; '));
}

/** The node to write: the operator's fields, and the engines' bookkeeping of the stored window. */
function merged(input: WindowInput, stored: MaintenanceWindow | undefined): WindowNode {
  const ms = durationMsOf(input.duration);
  const duration = ms !== undefined && ms > 0 ? formatDuration(ms) : input.duration;
  const node: WindowNode = { ...input, duration };
  if (input.reason === undefined) delete node.reason;
  if (input.skip === undefined) delete node.skip;
  // Kept while the target stays: an occurrence applied is not applied again (an operator who
  // resumed the queue meanwhile wins). A new target is held from the occurrence in force.
  const sameTarget = stored && JSON.stringify(stored.target) === JSON.stringify(input.target);
  if (sameTarget && stored.applied !== undefined) node.applied = stored.applied;
  if (stored?.releasing !== undefined) node.releasing = stored.releasing;
  return node;
}

/**
 * Creates or replaces a window (validated: BAD_REQUEST naming each field). With `version`, only
 * over that version of the node (-1: only while there is none); else over whatever is there now,
 * read again when an engine writes meanwhile. CONFLICT when it changed.
 */
export async function putWindow(
  ctx: QueueContext,
  name: string,
  input: WindowInput,
  options: { version?: number } = {},
): Promise<StoredWindow & { created: boolean }> {
  const path = windowPath(name);
  for (let attempt = 1; ; attempt++) {
    const stored = await currentOrAbsent(ctx, name);
    const version = stored?.version ?? -1;
    if (options.version !== undefined && options.version !== version)
      throw new QueueError(
        'CONFLICT',
        `${path} is at version ${version}, not ${options.version}; nothing written`,
        path,
      );
    const node = merged(input, stored?.window);
    checkWindow(node, ctx.now());
    try {
      const written = await writePolicy(ctx, path, windowNodeSchema, node, version);
      return { name, window: toWindow(node), version: written.version, created: version === -1 };
    } catch (err) {
      if (
        !(err instanceof QueueError && err.code === 'CONFLICT') ||
        options.version !== undefined ||
        attempt >= 3
      )
        throw err;
    }
  }
}

/** Deletes a window (with `version`, only that version of it); NOT_FOUND when absent, CONFLICT when it moved. */
export async function deleteWindow(
  ctx: QueueContext,
  name: string,
  options: { version?: number } = {},
): Promise<void> {
  const path = windowPath(name);
  try {
    await ctx.zk.delete(path, options.version ?? -1);
  } catch (err) {
    if (isZkError(err, 'NO_NODE'))
      throw new QueueError('NOT_FOUND', `no maintenance window "${name}"`, path, { cause: err });
    if (isZkError(err, 'BAD_VERSION'))
      throw new QueueError('CONFLICT', `${path} changed since it was read; nothing deleted`, path, {
        cause: err,
      });
    throw err;
  }
}

/**
 * Skips the occurrence in force at `now`, else the next one (the engines then lift the hold of the
 * one in force, or never place the next). One occurrence is skipped at a time: CONFLICT while
 * another one, not over yet, is skipped (PUT the window without `skip` to undo that). Written over
 * the version read: CONFLICT when the window changed meanwhile.
 */
export async function skipWindow(
  ctx: QueueContext,
  name: string,
  now: Date = ctx.now(),
): Promise<StoredWindow & { skipped: Occurrence }> {
  const stored = await getWindow(ctx, name);
  const path = windowPath(name);
  const window = stored.window;
  if (!window) throw new QueueError('ITEM_INVALID', `${path} cannot be read: ${stored.problem}`, path);
  const target = occurrenceToSkip(window, now);
  if (!target)
    throw new QueueError(
      'BAD_REQUEST',
      `window "${name}" has no occurrence to skip: "${window.cron}" never fires again`,
      path,
    );
  if (window.skip !== undefined) {
    const skipped = occurrenceAt(window, new Date(window.skip));
    if (skipped !== undefined && skipped.end.getTime() > now.getTime())
      throw new QueueError(
        'CONFLICT',
        `window "${name}" already skips the occurrence of ${window.skip}; one is skipped at a time (set the window again without skip to undo it)`,
        path,
      );
  }
  const node = toNode({ ...window, skip: target.start.toISOString() });
  const written = await writePolicy(ctx, path, windowNodeSchema, node, stored.version);
  return { name, window: toWindow(node), version: written.version, skipped: target };
}
