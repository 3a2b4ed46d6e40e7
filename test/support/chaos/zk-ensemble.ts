import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { ensureQueueTree } from '../../../src/queue/tree/init.js';
import { startEnsemble, type Ensemble, type EnsemblePlacement } from '../../../src/zk-server/ensemble.js';
import { fourLetterWord } from '../../../src/zk-server/four-letter.js';
import { connectZk } from '../../../src/zk/index.js';
import type { EngineProcess } from '../engine-process.js';
import { queueContext } from '../queue-context.js';

/**
 * A 3-server ZooKeeper ensemble of a scenario alone (its own temp dir, ports and data), with the
 * queue tree under a chroot: engines get every member and the chroot in one connect string, so
 * their client can fail over to any member.
 */
export interface ChaosEnsemble {
  ensemble: Ensemble;
  /** `<all members>/chaos`, as engines take it. */
  connectString: string;
  /** A queue context for the scenario's own checks (closed by `stop`). */
  ctx: QueueContext;
  /** Index of the leader, waiting until there is one; rejects after `timeoutMs`. */
  waitForLeader(timeoutMs?: number): Promise<number>;
  /** Index of the member serving ZooKeeper session `sessionId` (hex), if any answers for it. */
  memberOfSession(sessionId: string, skip?: number): Promise<number | undefined>;
  stop(): Promise<void>;
}

/** `placement` puts each member at its own address (its own network namespace). */
export async function startChaosEnsemble(
  name: string,
  placement?: EnsemblePlacement,
): Promise<ChaosEnsemble> {
  const dir = mkdtempSync(join(tmpdir(), `chaos-${name}-zk-`));
  const ensemble = await startEnsemble(dir, 3, 500, placement);
  const connectString = `${ensemble.connectString}/chaos`;
  const zk = await connectZk({ connectString, sessionTimeoutMs: 10_000 });
  const ctx = queueContext(zk);
  await ensureQueueTree(zk);
  return {
    ensemble,
    connectString,
    ctx,
    async waitForLeader(timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const leader = await ensemble.leaderIndex();
        if (leader !== undefined) return leader;
        if (Date.now() > until) throw new Error(`no ZooKeeper leader within ${timeoutMs} ms`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async memberOfSession(sessionId, skip) {
      const serving = await Promise.all(
        ensemble.members.map(async (m, i) => {
          // A frozen member never answers: do not ask it.
          if (i === skip || m.pid === undefined) return false;
          const connections = await fourLetterWord(m.host, m.port, 'cons', 1000).catch(() => '');
          return connections.includes(`sid=0x${sessionId},`);
        }),
      );
      const index = serving.indexOf(true);
      return index < 0 ? undefined : index;
    },
    async stop() {
      await zk.close().catch(() => undefined);
      await ensemble.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One `zookeeper session` log line of an engine process. */
export interface SessionLogEvent {
  state: string;
  sessionId: string;
  time: number;
}

/** The session events an engine process has logged so far (connected, suspended, expired…). */
export function sessionEvents(engine: EngineProcess): SessionLogEvent[] {
  return (
    logLines(engine)
      // The zk component's line (the engine repeats each event in one of its own).
      .filter((line) => line.msg === 'zookeeper session' && line.component === 'zk')
      .map((line) => ({
        state: String(line.state),
        sessionId: String(line.sessionId),
        time: Number(line.time),
      }))
  );
}

/** Summary figures of engines' session events: reconnects (same session), suspensions, sessions lost. */
export function sessionCounts(events: readonly SessionLogEvent[]): Record<string, number> {
  const count = (state: string) => events.filter((e) => e.state === state).length;
  return {
    // A client that lost its server and reconnected elsewhere with the same session.
    client_reconnects: count('disconnected'),
    sessions_suspended: count('suspended'),
    sessions_lost: count('expired'),
  };
}

/** The session an engine process is connected with now (its last `connected` event). */
export function currentSession(engine: EngineProcess): string | undefined {
  return sessionEvents(engine)
    .filter((e) => e.state === 'connected')
    .at(-1)?.sessionId;
}

/** An engine's output as pino JSON lines (other lines skipped). */
export function logLines(engine: EngineProcess): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = [];
  for (const text of engine.output().split('\n')) {
    if (!text.startsWith('{')) continue;
    try {
      lines.push(JSON.parse(text) as Record<string, unknown>);
    } catch {
      // a line cut short by a kill
    }
  }
  return lines;
}
