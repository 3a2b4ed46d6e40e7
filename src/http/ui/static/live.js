/* global EventSource, setTimeout, clearTimeout */
// Live updates: the API's server-sent transitions (`/events`), derived from ZooKeeper watches.

/**
 * Opens `/events`. `onTransition({kind, id, from, to, at})` for every transition; `onState('live')`
 * once the stream is synced (also after a reconnect: transitions may have been missed, refresh),
 * `onState('reconnecting')` when it dropped (the browser reconnects by itself).
 */
export function connectLive({ onTransition, onState }) {
  const source = new EventSource('/events');
  source.addEventListener('ready', () => onState('live'));
  source.addEventListener('transition', (event) => onTransition(JSON.parse(event.data)));
  source.addEventListener('error', () => onState('reconnecting'));
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
