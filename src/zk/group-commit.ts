import { ZkTransactionError, isZkError, type Op, type ZkClient } from './index.js';
import { TurnBatcher } from './turn-batcher.js';

/** The most transitions one group holds: a group stays far below the request size limit. */
const MAX_GROUP = 64;

interface Waiting {
  ops: Op[];
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * Group commit: the transitions of many jobs that become ready in the same turn of the event
 * loop go to ZooKeeper as one multi. ZooKeeper's cost is per transaction far more than per op,
 * and so is the client's, so one multi of 20 transitions costs little more than one of one.
 *
 * Each job's ops keep their own fencing (the lock check and the status version), and a multi
 * is atomic, so a group applies every transition in it or none. When ZooKeeper refuses a
 * group, nothing of it was written: each transition is then sent again on its own, so one
 * job's lost lock or moved status is that job's refusal alone (a group too large for one
 * request is sent the same way). A group whose answer is lost (timeout, connection loss) rejects
 * every member with that error, and each member settles its own outcome as after any commit
 * whose answer was lost.
 */
export class GroupCommit {
  private readonly batcher: TurnBatcher<Waiting>;
  /** Groups sent, and transitions in them: `transitions / groups` is the mean group size. */
  groups = 0;
  transitions = 0;

  constructor(
    private readonly zk: ZkClient,
    maxGroup = MAX_GROUP,
  ) {
    this.batcher = new TurnBatcher<Waiting>(
      (group) => void this.send(group),
      [{ of: () => 1, max: maxGroup }],
    );
  }

  /** Resolves once `ops` are committed (with others' or alone); rejects as `zk.multi(ops)` would. */
  commit(ops: Op[]): Promise<void> {
    return new Promise<void>((resolve, reject) => this.batcher.add({ ops, resolve, reject }));
  }

  private async send(group: Waiting[]): Promise<void> {
    this.groups++;
    this.transitions += group.length;
    try {
      await this.zk.multi(group.flatMap((w) => w.ops));
      for (const w of group) w.resolve();
    } catch (err) {
      const at =
        group.length > 1 && err instanceof ZkTransactionError ? memberAt(group, err.failedIndex) : undefined;
      if (at && err instanceof ZkTransactionError) {
        // Refused: nothing was written. The op ZooKeeper names is the first that failed, in the
        // member it belongs to (the ops before it passed); that member has its refusal, as alone,
        // and the rest go again as one group.
        const { member, offset } = at;
        member.reject(
          new ZkTransactionError(
            err.failedIndex - offset,
            err.failedOp,
            err.kind,
            err.results.slice(offset, offset + member.ops.length),
          ),
        );
        return this.send(group.filter((w) => w !== member));
      }
      // Too large to send as one (or refused otherwise): each goes alone.
      if (group.length > 1 && !(isZkError(err) && err.retryable)) {
        for (const w of group)
          this.zk.multi(w.ops).then(
            () => w.resolve(),
            (e: unknown) => w.reject(e),
          );
        return;
      }
      for (const w of group) w.reject(err);
    }
  }
}

/** The member of `group` whose ops hold the op at `index` of the group's multi, and where they start. */
function memberAt(group: readonly Waiting[], index: number): { member: Waiting; offset: number } | undefined {
  let offset = 0;
  for (const member of group) {
    if (index >= offset && index < offset + member.ops.length) return { member, offset };
    offset += member.ops.length;
  }
  return undefined; // not an op of the group: each member goes alone (below)
}
