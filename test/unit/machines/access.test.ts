import { describe, expect, it } from 'vitest';
import { accessMachine, accessStates, newAccessState, nextAccessState } from '../../../machines/index.js';
import { storedAccess } from './fixtures.js';

describe('access machine', () => {
  it('has exactly the documented states', () => {
    expect(Object.keys(accessMachine.root.states)).toEqual([...accessStates]);
  });

  it('a new request starts pending in its queue', () => {
    expect(newAccessState({ accessId: 'qid1', queue: 'large' })).toMatchObject({
      to: 'pending',
      context: { accessId: 'qid1', queue: 'large', message: null },
    });
  });

  it('a failed assembly records why; a requeue puts it back to pending and clears the message', () => {
    const failed = nextAccessState(storedAccess('processing'), {
      type: 'assemble.failed',
      message: 'too large',
    });
    expect(failed).toMatchObject({ to: 'failed', context: { message: 'too large' } });
    const requeued = nextAccessState(storedAccess('failed', { message: 'too large' }), {
      type: 'admin.requeue',
    });
    expect(requeued).toMatchObject({ to: 'pending', context: { message: null } });
  });

  it('an operator deletes a failed or completed request, nothing else (mrt-admin Queue Del)', () => {
    const deletable = accessStates.filter(
      (state) => nextAccessState(storedAccess(state), { type: 'admin.delete' }).ok,
    );
    expect(deletable).toEqual(['completed', 'failed']);
    const requeueable = accessStates.filter(
      (state) => nextAccessState(storedAccess(state), { type: 'admin.requeue' }).ok,
    );
    expect(requeueable).toEqual(['failed']);
  });
});
