import { JavaStreamError, readJavaProperties } from './java-serial.js';

/**
 * The records of Merritt's pre-2024 ingest queue: `/ingest/mrtQ-<priority><sequence>`, written by
 * cdl-zk-queue's `DistributedQueue` (PERSISTENT_SEQUENTIAL under the name `mrtQ-` + a two-digit
 * priority, so ZooKeeper appends a 10-digit sequence). Each node holds the 9-byte header of
 * cdl-zk-queue's `Item` (1 status byte, then the time of the last change as a big-endian Java
 * long of milliseconds) and the job's properties: a serialized `java.util.Properties` until
 * February 2024 (mrt-ingest 5426735 made it a JSON string until the queue was retired in July
 * 2024); the text form of Properties (`key=value`) is read too.
 */

/** The legacy queue's folder. */
export const LEGACY_INGEST_QUEUE = '/ingest';

/** cdl-zk-queue's `Item` status bytes, in order (0 = Pending … 5 = Held). */
export const LEGACY_STATUSES = ['Pending', 'Consumed', 'Deleted', 'Failed', 'Completed', 'Held'] as const;
export type LegacyStatus = (typeof LEGACY_STATUSES)[number];

export type LegacyPayloadFormat = 'java-serialized' | 'json' | 'properties-text';

/** One readable legacy record. */
export interface LegacyRecord {
  /** The node name, `mrtQ-…`. */
  node: string;
  /** The priority in the name (two digits; 0 when absent). */
  priority: number;
  /** ZooKeeper's sequence number in the name: unique within the queue. */
  sequence: number;
  status: LegacyStatus;
  /** When the record last changed (the header's time). */
  changedAt: Date;
  format: LegacyPayloadFormat;
  properties: Record<string, string>;
}

/** A record that cannot be read, and why (it stays in the legacy queue). */
export interface UnreadableRecord {
  node: string;
  reason: string;
}

export type LegacyDecoding = { ok: true; record: LegacyRecord } | { ok: false; unreadable: UnreadableRecord };

const HEADER_BYTES = 9;
const NAME = /^mrtQ-(\d*?)(\d{10})$/;
/** What every job record of mrt-ingest's `HandlerSubmit` carries. */
export const REQUIRED_PROPERTIES = ['batchID', 'jobID', 'profile'] as const;

/** `key=value`, `key: value` or `key value` lines (java.util.Properties.load, without rarities). */
function readPropertiesText(text: string): Record<string, string> {
  const entries: Record<string, string> = {};
  const logical = text.replace(/\\\r?\n[ \t\f]*/g, '').split(/\r\n|\r|\n/);
  for (const [index, raw] of logical.entries()) {
    const line = raw.replace(/^[ \t\f]+/, '');
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue;
    const match = /^((?:\\.|[^=:\s\\])+)\s*[=:\s]\s*(.*)$/.exec(line);
    if (!match) throw new Error(`line ${index + 1} is no key=value`);
    entries[unescape(match[1]!)] = unescape(match[2]!);
  }
  return entries;
}

function unescape(text: string): string {
  return text.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_, esc: string) => {
    if (esc.length === 5) return String.fromCharCode(parseInt(esc.slice(1), 16));
    return ({ t: '\t', n: '\n', r: '\r', f: '\f' } as Record<string, string>)[esc] ?? esc;
  });
}

function readJsonObject(text: string): Record<string, string> {
  const json = JSON.parse(text) as unknown;
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new Error('JSON but not an object');
  return Object.fromEntries(
    Object.entries(json).map(([key, value]) => [
      key,
      typeof value === 'string' ? value : JSON.stringify(value),
    ]),
  );
}

function readPayload(payload: Buffer): { format: LegacyPayloadFormat; properties: Record<string, string> } {
  if (payload[0] === 0xac && payload[1] === 0xed)
    return { format: 'java-serialized', properties: readJavaProperties(payload) };
  const text = new TextDecoder('utf-8', { fatal: true }).decode(payload);
  if (text.trimStart().startsWith('{')) return { format: 'json', properties: readJsonObject(text) };
  return { format: 'properties-text', properties: readPropertiesText(text) };
}

function why(err: unknown): string {
  if (err instanceof JavaStreamError) return `serialized Properties unreadable: ${err.message}`;
  if (err instanceof TypeError)
    return 'payload is neither serialized Properties, JSON nor Properties text (not UTF-8)';
  return `payload unreadable: ${(err as Error).message}`;
}

/** Reads one legacy node; an unreadable one comes back with its name and the reason. */
export function decodeLegacyNode(node: string, data: Buffer | undefined): LegacyDecoding {
  const fail = (reason: string): LegacyDecoding => ({ ok: false, unreadable: { node, reason } });
  const name = NAME.exec(node);
  if (!name) return fail('not a queue record name (mrtQ-<priority><10-digit sequence>)');
  const bytes = data ?? Buffer.alloc(0);
  if (bytes.length < HEADER_BYTES)
    return fail(`truncated: ${bytes.length} bytes, shorter than the 9-byte header (status, time)`);
  const status = LEGACY_STATUSES[bytes[0]!];
  if (!status) return fail(`unknown status byte ${bytes[0]} (0-5 are Pending…Held)`);
  if (bytes.length === HEADER_BYTES) return fail('no payload after the 9-byte header');
  let payload: ReturnType<typeof readPayload>;
  try {
    payload = readPayload(bytes.subarray(HEADER_BYTES));
  } catch (err) {
    return fail(why(err));
  }
  const missing = REQUIRED_PROPERTIES.filter((key) => !payload.properties[key]);
  if (missing.length > 0) return fail(`${payload.format} payload without ${missing.join(', ')}`);
  const record: LegacyRecord = {
    node,
    priority: name[1] ? Number(name[1].slice(0, 2)) : 0,
    sequence: Number(name[2]),
    status,
    changedAt: new Date(Number(bytes.readBigInt64BE(1))),
    ...payload,
  };
  return { ok: true, record };
}
