import type { EngineProcess } from '../engine-process.js';
import { runCli } from '../run-cli.js';

/** The job actions an operator races against the engines (scenario 5). */
export type JobAction = 'hold' | 'release' | 'requeue' | 'delete';
/** Real `mrtq` processes, or a running engine's HTTP API. */
export type Channel = 'cli' | 'http';

/**
 * What came of one operator action: accepted, refused by the lifecycle (CLI exit 5, HTTP 409
 * INVALID_TRANSITION), busy (exit 6, 409 LOCK_HELD/CONFLICT/LOCK_LOST: someone holds the item or it
 * moved meanwhile), or anything else, which is a defect.
 */
export interface Outcome {
  action: JobAction | 'update-report';
  id: string;
  channel: Channel;
  result: 'accepted' | 'refused' | 'busy' | 'unexpected';
  /** The state the item is in after an accepted action. */
  status?: string;
  /** What a refusal said (CLI stderr, or the API's `message`). */
  message: string;
  /** When the answer came (ms since the epoch). */
  at: number;
}

/** The state an accepted action leaves its item in. */
const ACCEPTED_AS: Readonly<Record<Outcome['action'], (status: string) => boolean>> = {
  hold: (s) => s === 'held',
  release: (s) => s === 'pending',
  delete: (s) => s === 'deleted',
  requeue: (s) =>
    ['estimating', 'provisioning', 'downloading', 'processing', 'recording', 'notify'].includes(s),
  'update-report': (s) => s === 'update-reporting',
};

type Answer = Pick<Outcome, 'result' | 'status' | 'message'>;

const BUSY_CODES = new Set(['LOCK_HELD', 'CONFLICT', 'LOCK_LOST']);

/** Every action is given a reason, as an operator gives one: a delete is refused without it. */
const OPERATOR_REASON = 'chaos 5: operator race';

/** The HTTP API base URL an engine logged at start (`"msg":"HTTP API"`). */
export function apiUrlOf(engine: EngineProcess): string {
  for (const line of engine.output().split('\n')) {
    if (!line.includes('"msg":"HTTP API"')) continue;
    const { url } = JSON.parse(line) as { url?: unknown };
    if (typeof url === 'string') return url;
  }
  throw new Error(`engine ${engine.pid} logged no HTTP API url`);
}

/** Acts as an operator would, through the CLI or the API, and records every outcome. */
export class Operator {
  readonly outcomes: Outcome[] = [];

  constructor(
    private readonly connectString: () => string,
    private readonly token: string,
  ) {}

  async act(
    action: Outcome['action'],
    id: string,
    channel: Channel,
    apiUrl: string | undefined,
  ): Promise<Outcome> {
    const answer =
      channel === 'cli' || apiUrl === undefined
        ? await this.viaCli(action, id)
        : await this.viaApi(action, id, apiUrl);
    const outcome: Outcome = { action, id, channel, ...answer, at: Date.now() };
    this.outcomes.push(outcome);
    return outcome;
  }

  private async viaCli(action: Outcome['action'], id: string): Promise<Answer> {
    const { code, stdout, stderr } = await runCli([
      action,
      id,
      '--reason',
      OPERATOR_REASON,
      '--json',
      '--zk',
      this.connectString(),
    ]);
    if (code === 0) {
      const { status } = JSON.parse(stdout) as { status: string };
      return { result: 'accepted', status, message: '' };
    }
    const result = code === 5 ? 'refused' : code === 6 ? 'busy' : 'unexpected';
    return { result, message: `exit ${code}: ${stderr.trim()}` };
  }

  private async viaApi(action: Outcome['action'], id: string, apiUrl: string): Promise<Answer> {
    const kind = id.startsWith('bid') ? 'batches' : 'jobs';
    const res = await fetch(`${apiUrl}/${kind}/${id}/${action}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${this.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ reason: OPERATOR_REASON }),
    });
    const body = (await res.json().catch(() => ({}))) as {
      job?: { status?: string };
      batch?: { status?: string };
      error?: string;
      message?: string;
    };
    if (res.status === 200)
      return { result: 'accepted', status: body.job?.status ?? body.batch?.status, message: '' };
    const result =
      res.status !== 409
        ? 'unexpected'
        : body.error === 'INVALID_TRANSITION'
          ? 'refused'
          : BUSY_CODES.has(body.error ?? '')
            ? 'busy'
            : 'unexpected';
    return { result, message: `${res.status} ${body.error ?? ''}: ${body.message ?? ''}` };
  }

  /** Acts until the action is accepted or refused (busy means: try again shortly). */
  async insist(action: Outcome['action'], id: string, apiUrl: string, untilMs = 30_000): Promise<Outcome> {
    const until = Date.now() + untilMs;
    for (;;) {
      const outcome = await this.act(action, id, 'http', apiUrl);
      if (outcome.result !== 'busy' || Date.now() > until) return outcome;
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  count(action: Outcome['action'], result: Outcome['result'] = 'accepted'): number {
    return this.outcomes.filter((o) => o.action === action && o.result === result).length;
  }

  /**
   * Outcomes that are defects: an unexpected answer, or a refusal whose message does not name
   * the item (an operator must be able to act on it).
   */
  problems(): string[] {
    return this.outcomes
      .filter((o) =>
        o.result === 'accepted'
          ? !ACCEPTED_AS[o.action](o.status ?? '')
          : o.result === 'unexpected' || !o.message.includes(o.id),
      )
      .map((o) => `${o.action} ${o.id} via ${o.channel}: ${o.result} ${o.status ?? ''} ${o.message}`);
  }
}
