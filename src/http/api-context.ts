import { credentialStore } from '../auth/credential-store.js';
import { ensureQueueTree } from '../queue/tree/init.js';
import type { SessionState } from '../zk/index.js';
import type { ApiContext, HttpApiDeps } from './deps.js';
import { Counters } from '../telemetry/prometheus.js';
import { createTransitionFeed } from '../streams/transition-feed.js';
import { EventFanout } from './events/fanout.js';

/** Counters this process keeps; declared up front so `/metrics` always lists them. */
function declareCounters(): Counters {
  const counters = new Counters();
  counters.declare(
    'mrtq_http_requests_total',
    'HTTP requests this process answered, by method, route and status code.',
    ['method', 'route', 'status'],
  );
  counters.declare(
    'mrtq_batches_submitted_total',
    "Batches submitted through this process's API (created=false: the uuid was known).",
    ['created'],
  );
  counters.declare(
    'mrtq_events_clients_dropped_total',
    'Clients of /events this process disconnected for not reading (more than the buffer limit waiting for them).',
  );
  return counters;
}

/**
 * The state the API keeps next to its deps; `close()` stops following the session. The
 * credentials files are read here: a missing or malformed one throws, so the API does not start.
 */
export function createApiContext(deps: HttpApiDeps): { ctx: ApiContext; close: () => void } {
  const credentials = credentialStore({
    file: deps.credentialsFile,
    basicFile: deps.basicAuthFile,
    apiToken: deps.token,
    log: deps.log.child({ component: 'auth' }),
  });
  let session: SessionState = deps.queue.zk.isConnected ? 'connected' : 'disconnected';
  const following = deps.queue.zk.session$.subscribe((event) => (session = event.state));
  let tree: Promise<void> | undefined;
  const ctx: ApiContext = {
    ...deps,
    counters: declareCounters(),
    sessionState: () => session,
    events: new EventFanout(createTransitionFeed(deps.queue.zk, deps.queue.lifecycle), (err) =>
      deps.log.warn({ err, component: 'http' }, 'event stream failed'),
    ),
    ensureTree: () => {
      tree ??= ensureQueueTree(deps.queue.zk, deps.queue.lifecycle).catch((err: unknown) => {
        tree = undefined; // try again with the next submission
        throw err;
      });
      return tree;
    },
    credentials,
  };
  return { ctx, close: () => following.unsubscribe() };
}
