import type { AccessSteps } from '../contracts.js';
import { assemble } from './access-assembly.js';
import type { IngestSettings } from './contracts.js';

/**
 * The access queue's step: the token names the object (`ark`, optional `version`); the zip is
 * assembled from the local store and the token gets its URL, size and status.
 */
export function createAccessSteps(settings: Pick<IngestSettings, 'dataDir'>): AccessSteps {
  return {
    async assemble({ request, signal }) {
      const { ark, version } = request.token;
      if (typeof ark !== 'string' || ark === '') {
        throw new Error(
          `access request ${request.accessId}: its token names no object (expected an "ark" field)`,
        );
      }
      const built = await assemble(
        {
          ark,
          version: typeof version === 'number' ? version : undefined,
          queue: request.queue,
          qid: request.accessId,
          signal,
        },
        { dataDir: settings.dataDir },
      );
      return {
        url: built.url,
        'cloud-content-byte': built.size,
        version: built.version,
        status: 'available',
      };
    },
  };
}
