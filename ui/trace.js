import { h } from './dom.js';

/** The item's lock holder, as the API names it: the engine process of the session, else the session. */
export function lockText(lock) {
  if (!lock) return 'not locked';
  const session = `session 0x${lock.sessionId}`;
  if (!lock.engine) return `${session} (no registered engine process)`;
  return `${lock.engine.id} (${lock.engine.host}, pid ${lock.engine.pid}; ${session})`;
}

/** A link to the trace in Jaeger when the server knows Jaeger's URL, else the trace id. */
export function traceCell(trace) {
  if (!trace) return h('span', { class: 'muted' }, 'none stored (tracing was off when it was submitted)');
  if (!trace.url) return h('span', { id: 'trace-id' }, `${trace.traceId} (set MRTQ_JAEGER_URL for a link)`);
  return h(
    'a',
    { href: trace.url, id: 'trace-link', rel: 'noreferrer', target: '_blank' },
    `Trace ${trace.traceId} in Jaeger`,
  );
}
