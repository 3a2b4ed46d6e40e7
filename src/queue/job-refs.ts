import { isZkError } from '../zk/index.js';
import type { QueueContext } from './context.js';
import { parseRefName } from './paths.js';

/**
 * The path of a job's ref in a state folder, whatever priority prefix it was written with (by
 * another tool: `100-`, `5-`, a priority that has changed since); undefined when it has none
 * there or the folder does not exist.
 */
export async function findRefIn(ctx: QueueContext, folder: string, jid: string): Promise<string | undefined> {
  try {
    const name = (await ctx.zk.getChildren(folder)).find((n) => parseRefName(n)?.jid === jid);
    return name === undefined ? undefined : `${folder}/${name}`;
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return undefined;
    throw err;
  }
}
