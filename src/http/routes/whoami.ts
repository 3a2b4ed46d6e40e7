import { ROLES } from '../../auth/actor.js';
import { channelOf } from '../auth.js';
import type { RouteSpec } from '../deps.js';
import type { JsonSchema } from '../schemas.js';

const whoami: JsonSchema = {
  type: 'object',
  required: ['name', 'via'],
  properties: {
    name: { type: 'string', description: "the credential's name; `anonymous` when none is configured" },
    role: { type: 'string', enum: [...ROLES] },
    collections: {
      type: 'array',
      items: { type: 'string' },
      description: 'the collections it is limited to; absent: all',
    },
    via: { type: 'string' },
  },
};

/**
 * `GET /whoami`: the caller's credential (name, role, collections), for the dashboard to show
 * beside its token form. Needs `read`: a caller without a valid credential gets the 401 any guarded
 * route gives; with no credentials configured it is `anonymous`, who may read and nothing else.
 */
export function whoamiRoute(): RouteSpec {
  return {
    method: 'GET',
    url: '/whoami',
    tag: 'operators',
    summary: "The caller's credential: its name, role and the collections it is limited to",
    role: 'read',
    schema: { response: { 200: whoami } },
    handler: (request) => Promise.resolve(request.actor ?? { name: 'anonymous', via: channelOf(request) }),
  };
}
