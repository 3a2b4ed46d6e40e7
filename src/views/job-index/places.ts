import type { QueueContext } from '../../queue/tree/context.js';
import { childrenOrEmpty } from '../listing/scan.js';
import { jobStateFolder, parseRefName } from '../../queue/tree/paths.js';

/** Where a job's ref sits: its state folder and the priority in the ref's name. */
export type JobPlace = { state: string; priority: number };

/** Every job with a ref, by jid: one listing per state folder, no job read. */
export async function listJobPlaces(ctx: QueueContext): Promise<Map<string, JobPlace>> {
  const { states } = ctx.lifecycle;
  const lists = await Promise.all(states.map((state) => childrenOrEmpty(ctx, jobStateFolder(state))));
  const places = new Map<string, JobPlace>();
  lists.forEach((refs, i) => {
    for (const ref of refs) {
      const parsed = parseRefName(ref);
      if (parsed) places.set(parsed.jid, { state: states[i] as string, priority: parsed.priority });
    }
  });
  return places;
}

/**
 * Whether a job is where it was: same state and priority, or still without a ref. A job that
 * moved has a new status, and may have new identifiers or metadata (both written by transitions).
 */
export function samePlace(a: JobPlace | undefined, b: JobPlace | undefined): boolean {
  return a === b || (a !== undefined && b !== undefined && a.state === b.state && a.priority === b.priority);
}
