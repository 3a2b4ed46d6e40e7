import type { AccessSteps } from '../contracts.js';
import type { AccessRecord } from '../../queue/access/requests.js';
import { assemble } from './assembly.js';
import {
  isUsableToken,
  readTokenStatus,
  tokenStatusPath,
  writeTokenStatus,
  type TokenStatus,
} from './token.js';
import type { IngestSettings } from '../../config/ingest-settings.js';

/** What to assemble, and the token status it came from (a Merritt-style request). */
interface AssemblyTarget {
  ark: string;
  version: number | undefined;
  tokenStatus?: TokenStatus;
}

/**
 * What a request asks for. Merritt's storage service writes a bare UUID token
 * (`{"status":201,"token":"<UUID>","cloud-content-byte":…,"delivery-node":…}`) whose details are
 * in the token status it saved (access-token.ts); this engine's own requests may name the object
 * directly (`ark`, optional `version`).
 */
async function targetOf(request: AccessRecord, dataDir: string): Promise<AssemblyTarget> {
  const { ark, version, token } = request.token;
  if (typeof ark === 'string' && ark !== '')
    return { ark, version: typeof version === 'number' ? version : undefined };
  const id = `access request ${request.queue}/${request.accessId}`;
  if (typeof token !== 'string' || token === '')
    throw new Error(`${id}: its token names no object (expected a "token" or an "ark" field)`);
  if (!isUsableToken(token))
    throw new Error(`${id}: token ${JSON.stringify(token)} cannot name a token status`);
  const status = await readTokenStatus(dataDir, token);
  if (!status) {
    const node = JSON.stringify(request.token['delivery-node'] ?? 'unknown');
    throw new Error(
      `${id}: the embedded store has no token status for token ${token} (${tokenStatusPath(dataDir, token)}); ` +
        `Merritt's storage service keeps the token statuses of the requests it queues (delivery node ${node}) ` +
        `and assembles them itself: leave this queue to it (serve without access consumers) or requeue it there`,
    );
  }
  const versionId = Number(status.versionID ?? 0);
  return {
    ark: status.objectIDS,
    version: Number.isInteger(versionId) && versionId > 0 ? versionId : undefined,
    tokenStatus: status,
  };
}

/**
 * The access queue's step: finds what the request asks for (targetOf), assembles the zip from
 * the local store, and returns the token fields to update. A Merritt-style token keeps its keys
 * and their types (`status` stays mrt-store's HTTP status number); it gains `url` and the built
 * size, and its token status becomes `OK`, as mrt-store's TokenRun leaves it.
 */
export function createAccessSteps(settings: Pick<IngestSettings, 'dataDir'>): AccessSteps {
  return {
    async assemble({ request, signal }) {
      const target = await targetOf(request, settings.dataDir);
      const built = await assemble(
        { ark: target.ark, version: target.version, queue: request.queue, qid: request.accessId, signal },
        { dataDir: settings.dataDir },
      );
      if (target.tokenStatus) {
        await writeTokenStatus(settings.dataDir, {
          ...target.tokenStatus,
          tokenStatusEnum: 'OK',
          cloudContentBytes: built.size,
          buildEnd: Date.now(),
        });
        return { url: built.url, 'cloud-content-byte': built.size };
      }
      return {
        url: built.url,
        'cloud-content-byte': built.size,
        version: built.version,
        status: 'available',
      };
    },
  };
}
