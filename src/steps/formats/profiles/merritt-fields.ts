import type { MerrittProfileKeys } from '../../ingest-contracts.js';
import {
  AGGREGATES,
  isArk,
  isHttpUrl,
  NOTIFICATION_TYPES,
  OBJECT_TYPES,
  ROLES,
  SUPPRESSIONS,
} from './values.js';

/**
 * The Merritt keys a YAML/JSON profile may set under their `MerrittProfileKeys` names
 * (`minterUrl`, `owner`, `collections`…), checked as a Merritt profile's are (no template
 * leniency: a YAML profile is never a template).
 */

type Bad = (field: string) => (what: string) => void;
type Check = (value: unknown, bad: (what: string) => void) => unknown;

const show = (value: unknown) => JSON.stringify(value);

const anyText: Check = (value, bad) => {
  if (typeof value === 'string' && value !== '') return value;
  bad(`must be a non-empty string, not ${show(value)}`);
  return undefined;
};

const httpUrl: Check = (value, bad) => {
  if (typeof value === 'string' && isHttpUrl(value)) return value;
  bad(`must be an http(s) URL, not ${show(value)}`);
  return undefined;
};

function oneOf(allowed: readonly string[]): Check {
  return (value, bad) => {
    if (typeof value === 'string' && allowed.includes(value)) return value;
    bad(`must be one of ${allowed.join(', ')}, not ${show(value)}`);
    return undefined;
  };
}

const arks: Check = (value, bad) => {
  const list: unknown[] = Array.isArray(value) ? value : [undefined];
  if (list.every((item) => typeof item === 'string' && isArk(item))) return list;
  bad(`must be a list of collection arks (ark:/…), not ${show(value)}`);
  return undefined;
};

const integer: Check = (value, bad) => {
  if (typeof value === 'number' && Number.isInteger(value)) return value;
  bad(`must be an integer, not ${show(value)}`);
  return undefined;
};

const boolean: Check = (value, bad) => {
  if (typeof value === 'boolean') return value;
  bad(`must be true or false, not ${show(value)}`);
  return undefined;
};

const CHECKS: Record<keyof MerrittProfileKeys, Check> = {
  description: anyText,
  identifierScheme: anyText,
  identifierNamespace: anyText,
  collections: arks,
  objectType: oneOf(OBJECT_TYPES),
  role: oneOf(ROLES),
  aggregate: oneOf(AGGREGATES),
  owner: (value, bad) =>
    typeof value === 'string' && value.includes('ark:/') ? value : bad(`must be an ark, not ${show(value)}`),
  context: anyText,
  ezidCoOwner: anyText,
  minterUrl: httpUrl,
  storageService: httpUrl,
  storageNode: integer,
  notificationFormat: anyText,
  notificationType: oneOf(NOTIFICATION_TYPES),
  notificationSuppression: oneOf(SUPPRESSIONS),
  suppressDublinCoreLocalId: boolean,
};

/** The field names a YAML/JSON profile may use for Merritt's keys. */
export const MERRITT_FIELDS = Object.keys(CHECKS);

/** The Merritt keys `data` sets, each checked; a bad one is reported through `bad(field)`. */
export function merrittFieldsOf(data: Record<string, unknown>, bad: Bad): MerrittProfileKeys {
  const fields: Record<string, unknown> = {};
  for (const [field, check] of Object.entries(CHECKS)) {
    if (data[field] === undefined) continue;
    const value = check(data[field], bad(field));
    if (value !== undefined) fields[field] = value;
  }
  return fields;
}
