import { restoreAccess, type AccessEvent } from '../../machines/index.js';
import { commitAccessTransition, type AccessRecord, type AcquiredAccess } from '../queue/access.js';
import { isQueueError } from '../queue/errors.js';
import { Attr, SpanName } from '../telemetry/attributes.js';
import { markFailed, withSpan } from '../telemetry/span.js';
import type { EngineDeps } from './deps.js';
import { releaseEventually } from './lock-release.js';
import { runMachineStep, StepAbortedError } from './step-runner.js';
import type { AccessSteps } from '../steps/contracts.js';

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
    request = await commitAccessTransition(
      deps.queue,
      acquired,
      { type: 'access.acquired' },
      { release: false },
    );
  }
  const current = { request, lock: acquired.lock };
  const attributes = { [Attr.accessId]: request.accessId, [Attr.state]: request.status };
  await withSpan(SpanName.step(`access ${request.queue}`), attributes, async (span) => {
    let token: Record<string, unknown> = {};
    let event: AccessEvent;
    try {
      const { machine, input } = restoreAccess(request);
      event = await runMachineStep<AccessEvent>({
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
    } catch (err) {
      await releaseEventually(deps.queue, acquired.lock, deps.log);
      if (!(err instanceof StepAbortedError)) throw err;
      return;
    }
    span.setAttribute(Attr.event, event.type);
    if (event.type === 'assemble.failed') markFailed(span, event.message);
    const update = event.type === 'assemble.done' ? { ...request.token, ...token } : undefined;
    try {
      await commitAccessTransition(deps.queue, current, event, { token: update });
    } catch (err) {
      if (!isQueueError(err) || (err.code !== 'LOCK_LOST' && err.code !== 'CONFLICT')) throw err;
      deps.log.warn({ accessId: request.accessId, err }, 'stale access result discarded');
    }
  });
}
