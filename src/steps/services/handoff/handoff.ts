import type { JobInventory, JobStore } from '../../../queue/tree/records.js';
import { javaUrlDecode, javaUrlEncode } from '../../formats/java-url.js';
import { OutputError } from '../../output-errors.js';

/**
 * The hand-off nodes between processing, storage and inventory, in Merritt's format
 * (merritt-protocols.md §1, §2): what ingest's `ProcessConsumer` writes and what mrt-store's
 * `StoreConsumer` and mrt-inventory's `ProcessJob` read.
 */

/** Where a store node sends an object: the action, the storage node, the ark. */
export interface StoreTarget {
  action: 'add' | 'update';
  node: number;
  ark: string;
}

/** Storage node of the embedded store: mrt-store's node number when none is configured. */
export const DEFAULT_STORAGE_NODE = 7777;

/** Base of the embedded store's manifest URLs: `…/manifest/{node}/{ark}` as mrt-store serves them. */
export const EMBEDDED_STORE_URL = 'mrtq:store';

/**
 * Where a Merritt deployment's storage service fetches a job's hand-off manifest and files: the
 * engine's HTTP API serves its working directories read-only under this path, as Merritt's
 * ingest serves its queue directory (`webapps/ingestqueue`).
 */
export const INGEST_QUEUE_PATH = '/ingestqueue';

/**
 * `{publicUrl}/ingestqueue/{dir}/{path}`: `dir` is the job's working directory relative to the
 * work root (`<batch id>/<job id>`, where Merritt's ingest has `<bid-uuid>/<jid-uuid>`), `path` a
 * file in it; each segment encoded as Merritt's ingest does (`FileUtil.getURLEncodeFilePath`,
 * Java's URLEncoder), but a space as `%20`, not `+`, which no web server decodes in a path.
 */
export function ingestQueueUrl(publicUrl: string, dir: string, path: string): string {
  const segments = [...dir.split('/'), ...path.split('/')].filter((segment) => segment !== '');
  const encode = (segment: string) => javaUrlEncode(segment).replaceAll('+', '%20');
  return `${publicUrl.replace(/\/+$/, '')}${INGEST_QUEUE_PATH}/${segments.map(encode).join('/')}`;
}

/**
 * `add/7777/ark%3A%2F13030%2Fm5xxxx`: three `/`-separated parts, the ark encoded by Java's
 * `URLEncoder` as Merritt's ingest does (mrt-store splits on `/` and URL-decodes the third).
 */
export function storeMode(target: StoreTarget): string {
  return `${target.action}/${target.node}/${javaUrlEncode(target.ark)}`;
}

/**
 * The store node processing writes: `delete` is always present (mrt-store reads it with
 * getString), `""` or the delete list as Merritt's ingest makes it (`deleteField`: a newline
 * after every path).
 */
export function storeNode(manifestUrl: string, target: StoreTarget, deleteText = ''): JobStore {
  return { manifest_url: manifestUrl, mode: storeMode(target), delete: deleteText };
}

/** The inventory node: the storage manifest URL inventory loads; `mode` is unused by Merritt (`""`). */
export function inventoryNode(storeUrl: string, target: StoreTarget): JobInventory {
  return { manifest_url: `${storeUrl}/manifest/${target.node}/${javaUrlEncode(target.ark)}`, mode: '' };
}

function invalid(jid: string, message: string): OutputError {
  return new OutputError('HANDOFF_INVALID', `job ${jid}: ${message}`);
}

/** Splits a store node's `mode` as mrt-store does; HANDOFF_INVALID naming what is wrong otherwise. */
export function parseStoreMode(jid: string, mode: unknown): StoreTarget {
  const parts = typeof mode === 'string' ? mode.split('/') : [];
  const [action, node, encoded] = parts;
  if (parts.length !== 3 || (action !== 'add' && action !== 'update') || !/^\d+$/.test(node ?? '')) {
    throw invalid(
      jid,
      `/jobs/${jid}/store has mode ${JSON.stringify(mode)}; expected "add|update/<node>/<ark percent-encoded>" ` +
        '(exactly three parts: an unencoded ark breaks it); requeue from processing to write it again',
    );
  }
  let ark: string;
  try {
    ark = javaUrlDecode(encoded ?? '');
  } catch {
    throw invalid(jid, `/jobs/${jid}/store names ark "${encoded}", which is not percent-encoded correctly`);
  }
  return { action, node: Number(node), ark };
}

/** The store node of a job, checked: a manifest URL, a mode, and `delete` present. */
export function requireStoreNode(jid: string, store: JobStore | undefined): JobStore & StoreTarget {
  if (!store)
    throw invalid(jid, `no /jobs/${jid}/store hand-off node (processing writes it); requeue from processing`);
  if (typeof store.manifest_url !== 'string' || store.manifest_url === '')
    throw invalid(jid, `/jobs/${jid}/store has no manifest_url`);
  return {
    ...store,
    delete: typeof store.delete === 'string' ? store.delete : '',
    ...parseStoreMode(jid, store.mode),
  };
}

/**
 * The ark and node an inventory node's manifest URL names (`…/manifest/{node}/{ark}`), as
 * mrt-inventory's `url2ark` reads it; HANDOFF_INVALID when the URL has no such tail.
 */
export function inventoryTarget(
  jid: string,
  inventory: JobInventory | undefined,
): { node: number; ark: string } {
  if (!inventory || typeof inventory.manifest_url !== 'string' || inventory.manifest_url === '')
    throw invalid(
      jid,
      `no /jobs/${jid}/inventory hand-off node (processing writes it); requeue from processing`,
    );
  const match = /\/manifest\/(\d+)\/([^/?#]+)\/?(?:[?#].*)?$/.exec(inventory.manifest_url);
  let ark: string | undefined;
  try {
    ark = match ? javaUrlDecode(match[2]!) : undefined;
  } catch {
    ark = undefined;
  }
  if (!match || !ark?.startsWith('ark:'))
    throw invalid(
      jid,
      `/jobs/${jid}/inventory names ${inventory.manifest_url}, which is no storage manifest URL (…/manifest/<node>/<ark percent-encoded>)`,
    );
  return { node: Number(match[1]), ark };
}
