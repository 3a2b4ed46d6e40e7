import { accessRoles, nextAccessState, restoreAccess, type AccessEvent } from '../../../machines/index.js';
import {
  commitAccessTransition,
  loadAccess,
  type AccessRecord,
  type AcquiredAccess,
} from '../../queue/access/requests.js';
import { Attr, SpanName } from '../../telemetry/attributes.js';
import type { AccessSteps } from '../../steps/contracts.js';
import type { EngineDeps } from '../deps.js';
import { runMachineStep } from '../step-runner.js';
import type { ItemCommit, ItemDescriptor } from './item-runner.js';

/**
 * An access request: taken (processing, lock kept), assembled through the access machine, and
 * committed completed with its token updated (URL, size) or failed with the reason.
 */
export function accessItem(steps: AccessSteps): ItemDescriptor<AcquiredAccess, AccessRecord, AccessEvent> {
  return {
    noun: 'access',
    record: (acquired) => acquired.request,
    id: (request) => request.accessId,
    load: (queue, request) => loadAccess(queue, request.queue, request.accessId),
    with: (held, request) => ({ ...held, request }),
    take: (deps, held) =>
      held.request.status === accessRoles.initial
        ? {
            event: { type: 'access.acquired' },
            ends: false,
            commit: commitOf(deps, held, { type: 'access.acquired' }, { release: false }),
          }
        : undefined,
    step: (deps, held, signal) => {
      const { request } = held;
      let token: Record<string, unknown> = {};
      return {
        span: {
          name: SpanName.step(`access ${request.queue}`),
          attributes: { [Attr.accessId]: request.accessId, [Attr.state]: request.status },
        },
        run: () => {
          const { machine, input } = restoreAccess(request);
          return runMachineStep<AccessEvent>({
            machine,
            input,
            actorNames: ['assemble'],
            actor: 'assemble',
            signal,
            inspect: deps.inspect,
            run: async (stepSignal) => {
              const log = deps.log.child({ accessId: request.accessId });
              token = await steps.assemble({ request, signal: stepSignal, log });
            },
          });
        },
        commit: (event) =>
          commitOf(deps, held, event, {
            token: event.type === 'assemble.done' ? { ...request.token, ...token } : undefined,
          }),
      };
    },
  };
}

function commitOf(
  deps: EngineDeps,
  held: AcquiredAccess,
  event: AccessEvent,
  options: Parameters<typeof commitAccessTransition>[3],
): ItemCommit<AcquiredAccess, AccessRecord> {
  return {
    held,
    attempt: () => ({
      write: () => commitAccessTransition(deps.queue, held, event, options),
      expected: () => expectedAccess(held.request, event),
    }),
  };
}

/** The request after `event`, as commitAccessTransition writes it: what settle looks for. */
function expectedAccess(request: AccessRecord, event: AccessEvent): AccessRecord {
  const result = nextAccessState(request, event);
  // Asked only after a write that reached ZooKeeper, which the machine allowed before it was made.
  if (!result.ok) throw new Error(`access request ${request.accessId}: ${result.message}`);
  return { ...request, ...result.context, status: result.to, statusVersion: request.statusVersion + 1 };
}
