import { TOKEN } from './api-fixture.js';

/** One server-sent event. */
export interface SseEvent {
  event: string;
  data: unknown;
  /** The frame's `id:` line, when it has one. */
  id?: string;
}

/** A connection to `/events` collecting every event; `next` waits for one matching a predicate. */
export interface SseConnection {
  events: SseEvent[];
  /** Resolves with the first event (received so far or later) that matches and was not taken yet. */
  next(match: (event: SseEvent) => boolean, ms?: number): Promise<SseEvent>;
  close(): void;
}

function parseFrame(frame: string): SseEvent | undefined {
  let event = 'message';
  let id: string | undefined;
  const data: string[] = [];
  for (const line of frame.split('\n')) {
    if (line.startsWith(':')) continue;
    if (line.startsWith('event: ')) event = line.slice(7);
    else if (line.startsWith('id: ')) id = line.slice(4);
    else if (line.startsWith('data: ')) data.push(line.slice(6));
  }
  if (data.length === 0) return undefined;
  const parsed: SseEvent = { event, data: JSON.parse(data.join('\n')) as unknown };
  if (id !== undefined) parsed.id = id;
  return parsed;
}

/**
 * Opens `GET <base>/events` (with the bearer token {@link TOKEN} unless given; with
 * `Last-Event-ID: lastEventId` when given, as a reconnecting EventSource does) and reads it in
 * the background.
 */
export async function openEvents(
  base: string,
  token: string | undefined = TOKEN,
  lastEventId?: string,
): Promise<SseConnection> {
  const abort = new AbortController();
  const headers: Record<string, string> = token === undefined ? {} : { authorization: `Bearer ${token}` };
  if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
  const res = await fetch(`${base}/events`, { signal: abort.signal, headers });
  if (res.status !== 200 || !res.headers.get('content-type')?.startsWith('text/event-stream'))
    throw new Error(`GET /events answered ${res.status} ${res.headers.get('content-type')}`);
  const events: SseEvent[] = [];
  const taken = new Set<SseEvent>();
  const wake = new Set<() => void>();
  void (async () => {
    const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      // One split per chunk: slicing the rest off after every frame is quadratic in a burst.
      const frames = (buffer + value).split('\n\n');
      buffer = frames.pop() ?? '';
      for (const frame of frames) {
        const parsed = parseFrame(frame);
        if (parsed) events.push(parsed);
      }
      for (const fn of wake) fn();
    }
  })().catch(() => undefined);
  const next = (match: (event: SseEvent) => boolean, ms = 10_000): Promise<SseEvent> =>
    new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = events.find((e) => !taken.has(e) && match(e));
        if (!found) return false;
        taken.add(found);
        wake.delete(check);
        clearTimeout(timer);
        resolve(found);
        return true;
      };
      const timer = setTimeout(() => {
        wake.delete(check);
        reject(new Error(`no matching event within ${ms} ms; received: ${JSON.stringify(events)}`));
      }, ms);
      if (!check()) wake.add(check);
    });
  return { events, next, close: () => abort.abort() };
}
