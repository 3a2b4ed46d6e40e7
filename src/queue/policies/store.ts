import type { z } from 'zod';
import { isZkError } from '../../zk/index.js';
import type { QueueContext } from '../tree/context.js';
import { QueueError } from '../tree/errors.js';
import { encodeJson } from '../tree/wire.js';

/**
 * The engine's run-time policies, one JSON node each under `/policies` (a folder of this
 * engine's; Merritt's services neither read nor write it): every engine watches them, so a change
 * made through any engine's API or CLI is honoured by all at once, and survives restarts.
 */
export const POLICIES = '/policies';
/** Retry policy: attempts and backoff per step and profile (src/engine/retry). */
export const RETRY_POLICY = `${POLICIES}/retry`;
/** Fair shares: the key jobs are shared by, weights and caps (src/engine/shares). */
export const SHARES_POLICY = `${POLICIES}/shares`;
/** Maintenance windows, one child node per window (src/queue/windows). */
export const WINDOWS = `${POLICIES}/windows`;
/** Alert thresholds: which rules fire when (src/alerts/policy.ts). */
export const ALERTS_POLICY = `${POLICIES}/alerts`;

/** A policy as read: its value (defaults when the node is absent) and the node's version (-1: absent). */
export interface StoredPolicy<T> {
  value: T;
  version: number;
}

/**
 * Reads a policy node through its schema. A node absent reads as `fallback`; a node whose data
 * the schema refuses is reported (`invalid`) and read as `fallback`, so a bad edit never stops an
 * engine (the API refuses such data before writing it).
 */
export function decodePolicy<T>(
  data: Buffer | undefined,
  schema: z.ZodType<T>,
  fallback: T,
  invalid?: (message: string) => void,
): T {
  if (!data || data.length === 0) return fallback;
  let raw: unknown;
  try {
    raw = JSON.parse(data.toString('utf8'));
  } catch (err) {
    invalid?.(`not JSON: ${(err as Error).message}`);
    return fallback;
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  invalid?.(parsed.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`).join('; '));
  return fallback;
}

export async function readPolicy<T>(
  ctx: QueueContext,
  path: string,
  schema: z.ZodType<T>,
  fallback: T,
): Promise<StoredPolicy<T>> {
  let node;
  try {
    node = await ctx.zk.getData(path);
  } catch (err) {
    if (isZkError(err, 'NO_NODE')) return { value: fallback, version: -1 };
    throw err;
  }
  const value = decodePolicy(node.data, schema, fallback, (message) =>
    ctx.log.warn({ path, problem: message }, 'policy node unreadable; defaults apply'),
  );
  return { value, version: node.stat.version };
}

/**
 * Writes a policy, checked by its schema first (BAD_REQUEST naming the field). With `version`,
 * only over that version of the node (CONFLICT when it moved on; -1: only while absent).
 */
export async function writePolicy<T>(
  ctx: QueueContext,
  path: string,
  schema: z.ZodType<T>,
  value: unknown,
  version?: number,
): Promise<StoredPolicy<T>> {
  const parsed = schema.safeParse(value);
  if (!parsed.success)
    throw new QueueError(
      'BAD_REQUEST',
      `${path}: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(top)'}: ${i.message}`).join('; ')}`,
      path,
    );
  const data = encodeJson(parsed.data);
  try {
    if (version === -1) {
      await ctx.zk.mkdirp(path.slice(0, path.lastIndexOf('/')));
      await ctx.zk.create(path, data);
      return { value: parsed.data, version: 0 };
    }
    try {
      const stat = await ctx.zk.setData(path, data, version ?? -1);
      return { value: parsed.data, version: stat.version };
    } catch (err) {
      if (!isZkError(err, 'NO_NODE') || version !== undefined) throw err;
      await ctx.zk.mkdirp(path.slice(0, path.lastIndexOf('/')));
      await ctx.zk.create(path, data);
      return { value: parsed.data, version: 0 };
    }
  } catch (err) {
    if (isZkError(err, 'BAD_VERSION') || isZkError(err, 'NODE_EXISTS') || isZkError(err, 'NO_NODE'))
      throw new QueueError('CONFLICT', `${path} changed since it was read; nothing written`, path, {
        cause: err,
      });
    throw err;
  }
}
