import { nextAccessState, restoreAccess, type AccessEvent } from '../../machines/index.js';
import {
  commitAccessTransition,
  loadAccess,
  type AccessRecord,
  type AcquiredAccess,
} from '../queue/access/requests.js';
import { Attr, SpanName } from '../telemetry/attributes.js';
import { markFailed, withSpan } from '../telemetry/span.js';
import type { EngineDeps } from './deps.js';
import { commitItem, stepItem, type ItemKind } from './item-runner.js';
import { runMachineStep } from './step-runner.js';
import type { AccessSteps } from '../steps/contracts.js';

const ACCESS_REQUEST: ItemKind<AcquiredAccess, AccessRecord> = {
  noun: 'access',
  record: (acquired) => acquired.request,
  id: (request) => request.accessId,
  load: (queue, request) => loadAccess(queue, request.queue, request.accessId),
};

/**
 * An access request: taken (processing, lock kept), assembled through the access machine, and
 * committed completed with its token updated (URL, size) or failed with the reason.
 */
export async function runAccessRequest(
  deps: EngineDeps,
  steps: AccessSteps,
  acquired: AcquiredAccess,
  signal: AbortSignal,
): Promise<void> {
  let request: AccessRecord = acquired.request;
  if (request.status === 'pending') {
    const taken = await commit(deps, acquired, { type: 'access.acquired' }, { release: false });
    if (!taken) return;
    request = taken;
  }
  const current = { request, lock: acquired.lock };
  const attributes = { [Attr.accessId]: request.accessId, [Attr.state]: request.status };
  await withSpan(SpanName.step(`access ${request.queue}`), attributes, async (span) => {
    let token: Record<string, unknown> = {};
    const stepped = await stepItem(deps, ACCESS_REQUEST, current, () => {
      const { machine, input } = restoreAccess(request);
      return runMachineStep<AccessEvent>({
        machine,
        input,
        actorNames: ['assemble'],
        actor: 'assemble',
        signal,
        inspect: deps.inspect,
        run: async (stepSignal) => {
          token = await steps.assemble({
            request,
            signal: stepSignal,
            log: deps.log.child({ accessId: request.accessId }),
          });
        },
      });
    });
    if (!stepped.ran) return;
    const event = stepped.value;
    span.setAttribute(Attr.event, event.type);
    if (event.type === 'assemble.failed') markFailed(span, event.message);
    const update = event.type === 'assemble.done' ? { ...request.token, ...token } : undefined;
    await commit(deps, current, event, { token: update });
  });
}

function commit(
  deps: EngineDeps,
  acquired: AcquiredAccess,
  event: AccessEvent,
  options: Parameters<typeof commitAccessTransition>[3],
): Promise<AccessRecord | undefined> {
  return commitItem(deps, ACCESS_REQUEST, acquired, event, () => ({
    write: () => commitAccessTransition(deps.queue, acquired, event, options),
    expected: () => expectedAccess(acquired.request, event),
  }));
}

/** The request after `event`, as commitAccessTransition writes it: what settle looks for. */
function expectedAccess(request: AccessRecord, event: AccessEvent): AccessRecord {
  const result = nextAccessState(request, event);
  // Asked only after a write that reached ZooKeeper, which the machine allowed before it was made.
  if (!result.ok) throw new Error(`access request ${request.accessId}: ${result.message}`);
  return { ...request, ...result.context, status: result.to, statusVersion: request.statusVersion + 1 };
}
