import type { Observable } from 'rxjs';
import type { SessionEvent, ZkClient } from '../zk/index.js';

/** The session's states (connected, disconnected, suspended, expired, closed); replays the current one. */
export function session$(zk: ZkClient): Observable<SessionEvent> {
  return zk.session$;
}
