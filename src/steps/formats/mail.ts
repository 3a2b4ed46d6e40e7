import type { Profile } from '../ingest-contracts.js';
import type { MailSettings } from '../../config/ingest-settings.js';

/** The display name of Merritt's sender (`email.setFrom(contact, "UC3 Merritt Support")`). */
export const MERRITT_SENDER_NAME = 'UC3 Merritt Support';

/** The service every ingest subject starts with. */
export const INGEST_SERVICE = 'Ingest';

/**
 * Merritt's `FormatterUtil.getSubject(service, instance, status, message, extras…)`: the template
 * `"%s%s%s -- %s %s"`, giving `Ingest: OK -- Submission Processed: bid-…;` in production and
 * `Ingest [stg]: OK -- …` on an instance; every extra is followed by `;`.
 */
export function merrittSubject(
  env: MailSettings['env'],
  status: 'OK' | 'FAIL',
  message: string,
  extras: string[],
) {
  const service = env ? INGEST_SERVICE : `${INGEST_SERVICE}: `;
  const instance = env ? ` [${env}]: ` : '';
  const extra = extras.map((s) => `${s};`).join('');
  return `${service}${instance}${status} -- ${message}: ${extra}`;
}

/** `[MRT-collection] ` when the profile names an `Aggregate` (an admin object), else empty. */
export function aggregatePrefix(profile: Profile | undefined): string {
  const aggregate = profile?.aggregate?.trim();
  return aggregate ? `[${aggregate}] ` : '';
}

/** Whether a profile's `NotificationSuppression` is one of `levels` (compared as Merritt does, any case). */
export function isSuppressed(profile: Profile | undefined, levels: readonly string[]): boolean {
  const value = String(profile?.notificationSuppression ?? '').toLowerCase();
  return value !== '' && levels.includes(value);
}

/** `NotificationType: verbose`. */
export function isVerbose(profile: Profile | undefined): boolean {
  return String(profile?.notificationType ?? '').toLowerCase() === 'verbose';
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const two = (n: number): string => String(n).padStart(2, '0');

/** `java.util.Date.toString()` in UTC (`Thu Aug 06 20:50:59 UTC 2026`): the report's completion date. */
export function javaDateString(date: Date): string {
  const time = `${two(date.getUTCHours())}:${two(date.getUTCMinutes())}:${two(date.getUTCSeconds())}`;
  return `${DAYS[date.getUTCDay()]} ${MONTHS[date.getUTCMonth()]} ${two(date.getUTCDate())} ${time} UTC ${date.getUTCFullYear()}`;
}

/** mrt-core's `DateUtil.getIsoDate` (`yyyy-MM-dd'T'HH:mm:ss+00:00`), in UTC. */
export function merrittIsoDate(date: Date): string {
  return `${date.toISOString().slice(0, 19)}+00:00`;
}
