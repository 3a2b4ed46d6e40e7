import type { Erc, MerrittProfileKeys } from '../ingest-contracts.js';

/**
 * The ANVL body Merritt's ingest sends to EZID (merritt-protocols.md §3, `MintUtil`), byte for
 * byte: the ERC kernel on one line with the literal three characters `%0A` between its elements,
 * then `mrt.creator`, `_target`, `_owner` and the admin-object lines, each on its own line (an
 * element Merritt leaves out is an empty line, as its ingest writes it; EZID skips empty lines).
 */

/** What the EZID body is built from. */
export interface EzidMetadata {
  erc: Erc;
  /** The object's ark: absent when minting (it is not known yet). */
  ark?: string;
  /** The depositor's local ids (joined with `; `, as Merritt keeps them in one string). */
  localIds: string[];
  profile?: Pick<MerrittProfileKeys, 'context' | 'ezidCoOwner' | 'aggregate'>;
  /** `ingest-info target`: `_target` is `{targetUrl}/m/{ark, URL-encoded twice}`; absent: no `_target`. */
  targetUrl?: string;
  /** The submission asked to keep the target EZID has (`retainTargetURL`): no `_target`. */
  retainTargetUrl?: boolean;
}

/** The separator of the ERC kernel's elements: the three characters `%0A`, not a newline. */
const EOL = '%0A';

/** Aggregates Merritt reserves in EZID and keeps from harvesting (admin objects). */
const ADMIN_AGGREGATES = /^(MRT-collection|MRT-owner|MRT-service-level-agreement)$/;

/** EZID's percent-escaping of ANVL values (`MintUtil.escape`): `%`, newline, carriage return, `:`. */
export function ezidEscape(value: string): string {
  return value.replace(/%/g, '%25').replace(/\n/g, '%0A').replace(/\r/g, '%0D').replace(/:/g, '%3A');
}

/**
 * `java.net.URLEncoder.encode(value, "UTF-8")`: what Merritt's services put in URLs. Unlike
 * encodeURIComponent it escapes `!'()~` and writes a space as `+`.
 */
export function javaUrlEncode(value: string): string {
  return encodeURIComponent(value)
    .replace(/[!'()~]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, '+');
}

/** `erc: who: …%0Awhat: …%0Awhen: …%0Awhere: {ark}%0Awhere: {localid}%0A`; absent elements left out. */
export function ezidErc(metadata: EzidMetadata): string {
  const localId = metadata.localIds.length > 0 ? metadata.localIds.join('; ') : undefined;
  const elements: [string, string | undefined][] = [
    ['who', metadata.erc.who],
    ['what', metadata.erc.what],
    ['when', metadata.erc.when],
    ['where', metadata.ark],
    ['where', localId],
  ];
  const present = elements.filter((e): e is [string, string] => e[1] !== undefined);
  return `erc: ${present.map(([key, value]) => `${key}: ${ezidEscape(value)}${EOL}`).join('')}`;
}

function targetLine(metadata: EzidMetadata): string {
  if (!metadata.ark || !metadata.targetUrl || metadata.retainTargetUrl) return '';
  const base = metadata.targetUrl.replace(/\/+$/, '');
  // Twice: EZID percent-decodes the target once before it stores it.
  return `_target: ${base}/m/${javaUrlEncode(javaUrlEncode(metadata.ark))}`;
}

/** The whole body of a mint or update request. */
export function ezidBody(metadata: EzidMetadata): string {
  const { profile } = metadata;
  const context = profile?.context === undefined ? '' : `mrt.creator: ${ezidEscape(profile.context)}`;
  const owner = profile?.ezidCoOwner === undefined ? '' : `_owner: ${profile.ezidCoOwner}`;
  const admin = ADMIN_AGGREGATES.test(profile?.aggregate ?? '') ? '_status: reserved\n_export: no' : '';
  return [ezidErc(metadata), context, targetLine(metadata), owner, admin].join('\n');
}
