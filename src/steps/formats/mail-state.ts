import { escapeXml } from './erc.js';

/**
 * Merritt's state documents (mrt-core2's formatters): a `StateInf` object (ingest's JobState,
 * BatchState) is written as XML, one element per displayable getter, every name prefixed with
 * the namespace of the root class (`job:` for JobState, `bat:` for BatchState); JSON is that
 * XML converted by org.json's `XML.toJSONObject`, which is why the keys carry the prefix, the
 * root's `xmlns:` attribute appears as a key, number-like values become numbers and a list of
 * one element is an object, not an array.
 */

/** One value of a state: absent values are left out, as the formatter skips null getters. */
export type StateValue = string | number | boolean | undefined | StateList;

/** A map of nested states (`getJobStates()`): an element holding one element per item. */
export interface StateList {
  item: string;
  items: StateFields[];
}

export type StateFields = ReadonlyArray<readonly [name: string, value: StateValue]>;

/** A whole state document: the root element's name, its namespace prefix and URI, its fields. */
export interface StateDocument {
  root: string;
  prefix: string;
  namespace: string;
  fields: StateFields;
}

/** The namespaces of mrt-core2's `XMLManifestNS.txt`. */
export const JOB_NAMESPACE = 'http://uc3.cdlib.org/ontology/mrt/ingest/job';
export const BATCH_NAMESPACE = 'http://uc3.cdlib.org/ontology/mrt/ingest/batch';

const isList = (value: StateValue): value is StateList => typeof value === 'object';

/** org.json's `XML.stringToValue`: booleans and plain numbers (no leading zero) become JSON values. */
function jsonValue(text: string): string | number | boolean {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (/^-?(0|[1-9]\d*)(\.\d+)?$/.test(text)) {
    const n = Number(text);
    // Larger integers become BigInteger in Java; kept as text here rather than losing digits.
    if (Number.isFinite(n) && (text.includes('.') || Number.isSafeInteger(n))) return n;
  }
  return text;
}

function jsonFields(prefix: string, fields: StateFields): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of fields) {
    if (value === undefined) continue;
    if (isList(value)) {
      const items = value.items.map((f) => jsonFields(prefix, f));
      // An empty element is org.json's empty string; one child an object; several an array.
      out[`${prefix}:${name}`] =
        items.length === 0 ? '' : { [`${prefix}:${value.item}`]: items.length === 1 ? items[0] : items };
    } else {
      out[`${prefix}:${name}`] = jsonValue(String(value));
    }
  }
  return out;
}

/** The state as Merritt's JSON formatter writes it (`{"job:jobState":{"xmlns:job":…,"job:jobID":…}}`). */
export function stateJson(doc: StateDocument): string {
  const body = { [`xmlns:${doc.prefix}`]: doc.namespace, ...jsonFields(doc.prefix, doc.fields) };
  return JSON.stringify({ [`${doc.prefix}:${doc.root}`]: body });
}

function xmlFields(prefix: string, fields: StateFields, indent: string): string[] {
  const lines: string[] = [];
  for (const [name, value] of fields) {
    if (value === undefined) continue;
    const tag = `${prefix}:${name}`;
    if (!isList(value)) {
      lines.push(`${indent}<${tag}>${escapeXml(String(value))}</${tag}>`);
      continue;
    }
    lines.push(`${indent}<${tag}>`);
    for (const item of value.items) {
      lines.push(`${indent}  <${prefix}:${value.item}>`);
      lines.push(...xmlFields(prefix, item, `${indent}    `));
      lines.push(`${indent}  </${prefix}:${value.item}>`);
    }
    lines.push(`${indent}</${tag}>`);
  }
  return lines;
}

/** The state as Merritt's XML formatter writes it. */
export function stateXml(doc: StateDocument): string {
  const root = `${doc.prefix}:${doc.root}`;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<${root} xmlns:${doc.prefix}="${doc.namespace}">`,
    ...xmlFields(doc.prefix, doc.fields, '  '),
    `</${root}>`,
    '',
  ].join('\n');
}
