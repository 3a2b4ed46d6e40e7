import { describe, expect, it } from 'vitest';
import { allows, ROLES, type Actor } from '../../../src/auth/actor.js';
import { collectionRefusal, roleRefusal } from '../../../src/auth/permission.js';

const actor = (role: Actor['role'], collections?: string[]): Actor => ({
  name: 'bob',
  role,
  ...(collections ? { collections } : {}),
  via: 'api',
});

describe('what a role may do, and the refusals that name what is needed', () => {
  it('orders the roles: each may do what the ones before it may', () => {
    for (const [i, role] of ROLES.entries())
      for (const [j, needed] of ROLES.entries())
        expect(allows(role, needed), `${role} ${needed}`).toBe(i >= j);
    expect(allows(undefined, 'read')).toBe(false);
  });

  it('names the action, the role needed and the role the credential has', () => {
    expect(roleRefusal(actor('read'), 'operator', 'hold job')).toBe(
      "hold job needs role operator; credential 'bob' has role read",
    );
    expect(roleRefusal(actor('admin'), 'operator', 'hold job')).toBeUndefined();
  });

  it('lets a credential limited to collections act on its own and names the collection it may not', () => {
    expect(collectionRefusal(actor('operator'), 'hold job', { collection: 'other' })).toBeUndefined();
    const limited = actor('operator', ['demo']);
    expect(collectionRefusal(limited, 'hold job', { collection: 'demo' })).toBeUndefined();
    expect(collectionRefusal(limited, 'hold job', { collection: 'other' })).toBe(
      "hold job on collection other: credential 'bob' is limited to collection demo",
    );
    expect(collectionRefusal(actor('admin', ['a', 'b']), 'pause queue', { everything: true })).toBe(
      "pause queue acts on every collection; credential 'bob' is limited to collections a, b",
    );
    expect(collectionRefusal(limited, 'hold job', { unknown: 'job jid0000000001' })).toBe(
      "hold job: the collection of job jid0000000001 is not known; credential 'bob' is limited to collection demo",
    );
  });
});
