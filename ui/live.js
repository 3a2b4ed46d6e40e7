/* global EventSource, setTimeout, clearTimeout, setInterval, clearInterval */
// Live updates: the API's server-sent transitions (`/events`), derived from ZooKeeper watches.

/**
 * Opens `/events`, with `?token=` when the page has the API token (EventSource cannot send
 * headers; a server with a token configured refuses the stream without it). `onTransition({kind,
 * id, from, to, at})` for every transition. `onState('live')` once the stream is synced: `ready`
 * on a first connection, or `reset` after a reconnect the server could not resume (it restarted,
 * or no longer holds the events after the last one seen): refresh what is shown.
 * `onState('reconnecting')` when it dropped (the browser reconnects by itself: the server went
 * away, or cut this page off for reading too slowly); the browser then sends the id of the last
 * event it got (`Last-Event-ID`), and the server sends what was missed: `onState('resumed')`, no
 * refresh needed. `onState('refused')` when the server would not open it (the browser then gives
 * up: open it again later, or with a token).
 */
export function connectLive({ token, onTransition, onState }) {
  const source = new EventSource(token ? `/events?token=${encodeURIComponent(token)}` : '/events');
  let dropped = false;
  source.addEventListener('open', () => {
    if (dropped) onState('resumed');
    dropped = false;
  });
  source.addEventListener('ready', () => onState('live'));
  source.addEventListener('reset', () => onState('live'));
  source.addEventListener('transition', (event) => onTransition(JSON.parse(event.data)));
  source.addEventListener('error', () => {
    const closed = source.readyState === EventSource.CLOSED;
    dropped = !closed;
    onState(closed ? 'refused' : 'reconnecting');
  });
  return () => source.close();
}

/** Runs `work` at most once per `ms`, after the latest call (trailing), never twice at once. */
export function throttle(work, ms) {
  let timer;
  let running = false;
  let again = false;
  const run = async () => {
    timer = undefined;
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      await work();
    } finally {
      running = false;
      if (again) {
        again = false;
        schedule();
      }
    }
  };
  const schedule = () => {
    if (timer === undefined) timer = setTimeout(run, ms);
  };
  schedule.cancel = () => {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
  };
  return schedule;
}

/** How often a page without the event stream refreshes what it shows. */
const POLL_MS = 1000;
/** How soon a refused event stream is asked for again. */
const RETRY_MS = 30_000;

/**
 * Keeps the page current: by the event stream when the server opens it, else by refreshing every
 * second (a server with a token configured opens the stream only to pages that have the token;
 * the reads a refresh makes stay open to all). `say(text)` tells which. Returns `restart()`, to
 * call when the token changes.
 */
export function keepCurrent({ token, onTransition, refresh, say }) {
  let close;
  let poll;
  let retry;
  const start = () => {
    close?.();
    clearTimeout(retry);
    close = connectLive({
      token: token(),
      onTransition,
      onState: (now) => {
        if (now === 'live' || now === 'resumed') {
          clearInterval(poll);
          poll = undefined;
          say('Live updates: on');
          if (now === 'live') refresh();
        } else if (now === 'reconnecting') {
          say('Live updates: reconnecting…');
        } else {
          say('Live updates: on, refreshing every second (the event stream needs the API token)');
          poll ??= setInterval(refresh, POLL_MS);
          retry = setTimeout(start, RETRY_MS);
        }
      },
    });
  };
  start();
  return start;
}
