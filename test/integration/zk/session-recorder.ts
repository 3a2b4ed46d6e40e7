import type { SessionEvent, SessionState, ZkClient } from '../../../src/zk/index.js';

/** Records every session event of a client, and waits for states. */
export class SessionRecorder {
  readonly events: SessionEvent[] = [];

  constructor(zk: ZkClient) {
    zk.session$.subscribe((event) => this.events.push(event));
  }

  get states(): SessionState[] {
    return this.events.map((event) => event.state);
  }

  /** The first event in `state` at or after position `from`; rejects after `timeoutMs`. */
  async waitFor(state: SessionState, from = 0, timeoutMs = 15_000): Promise<SessionEvent> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.slice(from).find((event) => event.state === state);
      if (found) return found;
      if (Date.now() > until) {
        throw new Error(`no '${state}' within ${timeoutMs} ms; saw ${this.states.join(' → ')}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }
}

/** Polls `check` until it returns true; rejects after `timeoutMs`. */
export async function eventually(
  check: () => Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
