import type { MerrittProfileKeys, Profile } from '../../ingest-contracts.js';

/**
 * The values a profile field may take, shared by the YAML/JSON profiles (`profiles.ts`) and
 * Merritt's Java-Properties profiles (`profiles-properties.ts`). The lists are Merritt's
 * (`ingest:IS/ProfileState.java`, merritt-protocols.md §5).
 */

/** `Type` (ProfileState.OBJECTTYPE). */
export const OBJECT_TYPES: readonly string[] = ['MRT-curatorial', 'MRT-system'];
/** `Role` (ProfileState.OBJECTROLE). */
export const ROLES: readonly string[] = ['MRT-content', 'MRT-class'];
/** `Aggregate` when not empty (ProfileState.AGGREGATETYPE). */
export const AGGREGATES: readonly string[] = ['MRT-collection', 'MRT-owner', 'MRT-service-level-agreement'];
export const NOTIFICATION_TYPES: ReadonlyArray<NonNullable<MerrittProfileKeys['notificationType']>> = [
  'verbose',
  'additional',
];
export const SUPPRESSIONS: ReadonlyArray<NonNullable<MerrittProfileKeys['notificationSuppression']>> = [
  'full',
  'partial',
];
export const RESPONSE_TYPES: ReadonlyArray<Profile['responseType']> = ['json', 'xml', 'turtle'];
/** The default priority of a profile that sets none (mrt-zk `Job.PRIORITY`). */
export const DEFAULT_PROFILE_PRIORITY = 5;

/** A profile name, and so a file name and a `/locks/collections` node name. */
export const SAFE_NAME = /^[A-Za-z0-9._-]+$/;

export function isHttpUrl(value: string): boolean {
  return URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);
}

export function isEmailAddress(value: string): boolean {
  return /^[^\s@]+@[^\s@]+$/.test(value);
}

export function isArk(value: string): boolean {
  return value.startsWith('ark:/');
}

/**
 * The callback body for Merritt's `NotificationFormat` (mrt-core's FormatType names): `json`,
 * `json2`, `xml` and `turtle` have one; any other (`anvl`, `csv`, `txt`, `xhtml`…) gets JSON,
 * which `ok` false says so the loader can warn.
 */
export function responseTypeOfFormat(format: string): { type: Profile['responseType']; ok: boolean } {
  const lower = format.toLowerCase();
  if (lower === 'json' || lower === 'json2') return { type: 'json', ok: true };
  if (lower === 'xml' || lower === 'turtle') return { type: lower, ok: true };
  return { type: 'json', ok: false };
}
