import type { NodeData } from '../../zk/index.js';
import type { QueueContext } from '../../queue/tree/context.js';
import { createLimit } from '../../queue/scan/reader.js';

/**
 * How the views read the nodes of many items at once. The nodes were written by anyone (this
 * engine, Merritt's Java library, an operator by hand, a writer that crashed half-way), so they are
 * read leniently: an unreadable node costs its item a key, never a list or the job index its answer.
 */

/** Items whose nodes one multi-read fetches, and such reads in flight. */
const READ_CHUNK = 200;
const READ_CONCURRENCY = 8;

/**
 * Reads the nodes `pathsOf` names for each id, {@link READ_CHUNK} ids to a multi-read and
 * {@link READ_CONCURRENCY} multi-reads in flight, and hands each id its nodes in `pathsOf`'s order
 * (undefined for a missing node).
 */
export async function readNodesInChunks(
  ctx: QueueContext,
  ids: readonly string[],
  pathsOf: (id: string) => readonly string[],
  each: (id: string, nodes: ReadonlyArray<NodeData | undefined>) => void,
): Promise<void> {
  const limit = createLimit(READ_CONCURRENCY);
  const chunks: string[][] = [];
  for (let i = 0; i < ids.length; i += READ_CHUNK) chunks.push(ids.slice(i, i + READ_CHUNK));
  await Promise.all(
    chunks.map((chunk) =>
      limit(async () => {
        const paths = chunk.map(pathsOf);
        const nodes = await ctx.zk.getDataMany(paths.flat());
        let at = 0;
        chunk.forEach((id, i) => {
          const count = paths[i]!.length;
          each(id, nodes.slice(at, (at += count)));
        });
      }),
    ),
  );
}

/**
 * A node's JSON object; {} when the node is missing, is not JSON, or holds no object. An array is
 * no object here: every reader looks up named keys (`profile_name`, `primary_id`, `last_modified`),
 * which an array never has.
 */
export function jsonOf(node: NodeData | undefined): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(node?.data?.toString('utf8') ?? '');
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return {};
  }
}

/**
 * A field's text exactly as written; undefined when it is no string. Rollups group by a profile or
 * collection exactly as the job names it (the group's key is that name, untouched); a search key is
 * trimmed on top of it ({@link searchKeyOf}).
 */
export const textOf = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** A key a search matches on: the text without its surrounding blanks; undefined when blank, which matches nothing. */
export const searchKeyOf = (value: unknown): string | undefined => textOf(value)?.trim() || undefined;
