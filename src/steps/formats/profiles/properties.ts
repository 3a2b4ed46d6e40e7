import { extname } from 'node:path';
import { parseLines, type Node, type Pair } from 'dot-properties';
import { clampPriority } from '../../../queue/tree/paths.js';
import type { Profile } from '../../ingest-contracts.js';
import {
  AGGREGATES,
  DEFAULT_PROFILE_PRIORITY,
  isArk,
  isEmailAddress,
  isHttpUrl,
  NOTIFICATION_TYPES,
  OBJECT_TYPES,
  responseTypeOfFormat,
  ROLES,
  SUPPRESSIONS,
} from './values.js';

/**
 * Merritt's own profiles: Java-Properties files (`Key: value` or `Key=value`, `#`/`!` comments,
 * `\` continuation lines and escapes), read the way `ingest:IS/utility/ProfileUtil.java` reads
 * them (merritt-protocols.md §5): each key is matched with `startsWith` against Merritt's keys in
 * Merritt's order, handler lists and unknown keys are ignored, and `TEMPLATE*` profiles are
 * checked leniently. Values are trimmed (Java keeps trailing blanks; Merritt's own templates
 * have them after `Aggregate:`).
 */

/** Problems (the profile is refused) and warnings (it loads), each `<file>: <key>: <what>`. */
export interface ProfileFindings {
  problems: string[];
  warnings: string[];
}

/** `ProfileUtil.isTemplate`: a template is checked leniently. */
export function isTemplateProfile(name: string): boolean {
  return name.startsWith('TEMPLATE');
}

/**
 * The profile name a directory entry gives when it is a Merritt profile, else undefined: Merritt
 * reads `{dir}/{name}.txt` or `{dir}/{name}`; a name with a dot of its own counts when it follows
 * Merritt's conventions (`…_content`, `TEMPLATE…`). Dot files are never profiles.
 */
export function merrittProfileName(file: string): string | undefined {
  if (file.startsWith('.')) return undefined;
  const ext = extname(file);
  if (ext === '.txt') return file.slice(0, -ext.length);
  if (ext === '' || file.endsWith('_content') || isTemplateProfile(file)) return file;
  return undefined;
}

/** The file's text: UTF-8 when it is valid UTF-8, else ISO-8859-1 (what Java's Properties.load reads). */
export function decodeProfileText(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return new TextDecoder('latin1').decode(bytes);
  }
}

interface Reading {
  file: string;
  template: boolean;
  profile: Profile;
  profileId?: string;
  notifications: Array<[string, string]>;
  collections: Array<[string, string]>;
  bad: (key: string, what: string) => void;
  warn: (key: string, what: string) => void;
}

type Apply = (r: Reading, value: string, key: string) => void;

const quoted = (value: string) => JSON.stringify(value);

function url(field: 'minterUrl' | 'callbackUrl' | 'storageService'): Apply {
  return (r, value, key) => {
    if (isHttpUrl(value)) r.profile[field] = value;
    else r.bad(key, `must be an http(s) URL, not ${quoted(value)}`);
  };
}

function text(
  field: 'description' | 'identifierScheme' | 'identifierNamespace' | 'context' | 'ezidCoOwner',
): Apply {
  return (r, value) => {
    if (value !== '') r.profile[field] = value;
  };
}

function oneOf(field: 'objectType' | 'role', allowed: readonly string[]): Apply {
  return (r, value, key) => {
    if (allowed.includes(value)) r.profile[field] = value;
    else r.bad(key, `must be one of ${allowed.join(', ')}, not ${quoted(value)}`);
  };
}

const priority: Apply = (r, value, key) => {
  if (!/^[+-]?\d+$/.test(value) && value !== '') {
    r.bad(key, `must be an integer from 00 to 99, not ${quoted(value)}`);
    return;
  }
  // Merritt left-pads the text to two characters, so an empty Priority is read as 00.
  const written = value === '' ? 0 : Number.parseInt(value, 10);
  r.profile.priority = clampPriority(written);
  if (value === '') r.warn(key, 'empty; read as 00 as Merritt does');
  else if (written !== r.profile.priority)
    r.warn(key, `${value} is outside 00..99; jobs get ${r.profile.priority} (merritt-protocols.md §8)`);
};

const storageNode: Apply = (r, value, key) => {
  if (/^[+-]?\d+$/.test(value)) r.profile.storageNode = Number.parseInt(value, 10);
  else if (!r.template) r.bad(key, `must be a storage node number, not ${quoted(value)}`);
};

const date: Apply = (r, value, key) => {
  if (!r.template && Number.isNaN(Date.parse(value))) r.bad(key, `must be a date, not ${quoted(value)}`);
};

const aggregate: Apply = (r, value, key) => {
  if (AGGREGATES.includes(value)) r.profile.aggregate = value;
  else if (value !== '' && !r.template)
    r.bad(key, `must be empty or one of ${AGGREGATES.join(', ')}, not ${quoted(value)}`);
};

const owner: Apply = (r, value, key) => {
  if (value.includes('ark:/')) r.profile.owner = value;
  else if (!r.template) r.bad(key, `must be an ark (ark:/…), not ${quoted(value)}`);
};

const collection: Apply = (r, value, key) => {
  if (isArk(value)) r.collections.push([key, value]);
  else if (!r.template) r.bad(key, `must be a collection ark (ark:/…), not ${quoted(value)}`);
};

const notification: Apply = (r, value, key) => {
  if (isEmailAddress(value)) r.notifications.push([key, value]);
  else if (value !== '' && !r.template) r.bad(key, `must be an e-mail address, not ${quoted(value)}`);
};

const notificationFormat: Apply = (r, value, key) => {
  if (value === '') return;
  const { type, ok } = responseTypeOfFormat(value);
  r.profile.notificationFormat = value;
  r.profile.responseType = type;
  if (!ok) r.warn(key, `the engine writes no ${quoted(value)} body; callbacks get ${type}`);
};

/** Merritt compares these case-blind and ignores any other value. */
function lowerOneOf<F extends 'notificationType' | 'notificationSuppression'>(
  field: F,
  allowed: ReadonlyArray<NonNullable<Profile[F]>>,
): Apply {
  return (r, value, key) => {
    const found = allowed.find((option) => option === value.toLowerCase());
    if (found) r.profile[field] = found;
    else if (value !== '')
      r.warn(key, `${quoted(value)} is not one of ${allowed.join(', ')}; ignored, as Merritt does`);
  };
}

const ignore: Apply = () => undefined;

/** ProfileUtil's keys in ProfileUtil's order: the first whose name a key starts with applies. */
const KEYS: ReadonlyArray<[string, Apply]> = [
  ['ProfileID', (r, value) => void (r.profileId = value)],
  ['ProfileDescription', text('description')],
  ['Identifier-scheme', text('identifierScheme')],
  ['Identifier-namespace', text('identifierNamespace')],
  ['Notification.', notification],
  ['ObjectMinterURL', url('minterUrl')],
  ['CallbackURL', url('callbackUrl')],
  ['Priority', priority],
  ['Collection.', collection],
  // HandlerIngest., HandlerQueue., HandlerBatchProcess.… : this engine's stages are fixed.
  ['Handler', ignore],
  ['StorageService', url('storageService')],
  ['StorageNode', storageNode],
  ['CreationDate', date],
  ['ModificationDate', date],
  ['Type', oneOf('objectType', OBJECT_TYPES)],
  ['Role', oneOf('role', ROLES)],
  ['Aggregate', aggregate],
  ['Owner', owner],
  ['Context', text('context')],
  ['EZID_co-owner', text('ezidCoOwner')],
  ['NotificationFormat', notificationFormat],
  ['NotificationType', lowerOneOf('notificationType', NOTIFICATION_TYPES)],
  ['NotificationSuppression', lowerOneOf('notificationSuppression', SUPPRESSIONS)],
  [
    'SuppressDublinCoreLocalID',
    (r, value) => void (r.profile.suppressDublinCoreLocalId = value.toLowerCase() === 'true'),
  ],
];

/** `Notification.2` before `Notification.10`: by the number after the prefix, then as text. */
function inKeyOrder(entries: Array<[string, string]>): string[] {
  const rank = (key: string) => Number(key.slice(key.indexOf('.') + 1));
  return entries
    .sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0))
    .map(([, value]) => value);
}

/** The key → value pairs of the text, the last of a repeated key winning (as Java's Properties). */
function pairsOf(text: string): Map<string, string> {
  const pairs = new Map<string, string>();
  for (const node of parseLines(text, true) as Node[]) {
    if (node.type === 'PAIR') pairs.set((node as Pair).key, (node as Pair).value.trim());
  }
  return pairs;
}

/**
 * Reads one Merritt profile. Its collection (the `/locks/collections` node its jobs' holds are
 * checked on) is its name, as Merritt's consumers check the hold named by the job's profile.
 * Returns undefined when a problem was found.
 */
export function parseMerrittProfile(
  file: string,
  name: string,
  text: string,
  findings: ProfileFindings,
): Profile | undefined {
  const before = findings.problems.length;
  const reading: Reading = {
    file,
    template: isTemplateProfile(name),
    profile: {
      name,
      collection: name,
      priority: DEFAULT_PROFILE_PRIORITY,
      notifications: [],
      responseType: 'json',
    },
    notifications: [],
    collections: [],
    bad: (key, what) => void findings.problems.push(`${file}: ${key}: ${what}`),
    warn: (key, what) => void findings.warnings.push(`${file}: ${key}: ${what}`),
  };
  for (const [key, value] of pairsOf(text)) {
    KEYS.find(([prefix]) => key.startsWith(prefix))?.[1](reading, value, key);
  }
  const { profile, profileId } = reading;
  if (profileId === undefined)
    reading.bad('ProfileID', 'required: a Merritt profile (Java-Properties) names itself with ProfileID');
  else if (profileId !== name && !reading.template)
    reading.warn(
      'ProfileID',
      `${quoted(profileId)} differs from the file name; submissions name it "${name}"`,
    );
  profile.notifications = inKeyOrder(reading.notifications);
  if (reading.collections.length > 0) profile.collections = inKeyOrder(reading.collections);
  return findings.problems.length === before ? profile : undefined;
}
