import { escapeXml } from '../../steps/formats/erc.js';

/**
 * Merritt's state documents (`bat:batchState`, `ing:ingestServiceState`, `exc:…`) as mrt-core's
 * formatters write them (mrt-core2 `formatter/XMLFormatter`, `JSONFormatter`, `ANVLFormatter`,
 * names from `XMLFormatNS.properties` and `XMLManifestNS.txt`): a tree of named values, written
 * as XML (4-space indents, the namespace declared on the root with single quotes, every element
 * prefixed), as JSON (org.json's `XML.toJSONObject` of that XML: prefixed keys, the `xmlns:`
 * attribute kept, an empty element `""`, numbers and booleans unquoted), or as ANVL (`name:
 * value` lines without prefixes, the values of one name together).
 */

/** A value of a state document; `children` for a nested state or map (possibly empty). */
export interface StateNode {
  name: string;
  value?: string | number | boolean;
  children?: readonly StateNode[];
}

/** A whole document: the root element's name, the namespace's prefix and URI, its values. */
export interface StateDocument {
  root: string;
  prefix: string;
  namespace: string;
  children: readonly StateNode[];
}

/**
 * mrt-core's `FormatType` names (the `responseForm` field, `?t=`): what `processFormatType`
 * accepts. Only `state` forms can carry a state document.
 */
const FORMAT_TYPES: Readonly<Record<string, { form: 'state' | 'file' | 'archive'; mime: string }>> = {
  anvl: { form: 'state', mime: 'text/x-anvl' },
  csv: { form: 'state', mime: 'text/csv' },
  json: { form: 'state', mime: 'application/json' },
  json2: { form: 'state', mime: 'application/json' },
  serial: { form: 'state', mime: 'application/x-java-serialized-object' },
  octet: { form: 'file', mime: 'application/octet-stream' },
  tar: { form: 'archive', mime: 'application/x-tar' },
  targz: { form: 'archive', mime: 'application/x-tar-gz' },
  txt: { form: 'file', mime: 'plain/text' },
  xml: { form: 'state', mime: 'text/xml' },
  xhtml: { form: 'state', mime: 'application/xhtml+xml' },
  zip: { form: 'archive', mime: 'application/zip' },
};

/** The forms this server writes; the others `processFormatType` accepts are refused (501). */
export const RENDERED_FORMS = ['xml', 'json', 'anvl'] as const;
export type RenderedForm = (typeof RENDERED_FORMS)[number];

/** Merritt's default form. */
export const DEFAULT_FORM: RenderedForm = 'xml';

const CONTENT_TYPES: Readonly<Record<RenderedForm, string>> = {
  xml: 'text/xml; charset=utf-8',
  json: 'application/json; charset=utf-8',
  anvl: 'text/x-anvl; charset=utf-8',
};

/**
 * The form a request names, as `processFormatType` reads it: a given name (any case) that is a
 * `FormatType`, else the `Accept` header when it is exactly one of their media types (the first
 * such type: `application/json` is json), else xml.
 */
export function requestedForm(accept: string | undefined, name?: string): string {
  if (name !== undefined && name.trim() !== '') {
    const key = name.trim().toLowerCase();
    return Object.hasOwn(FORMAT_TYPES, key) ? key : DEFAULT_FORM;
  }
  const byMime = Object.entries(FORMAT_TYPES).find(([, type]) => type.mime === accept?.trim());
  return byMime?.[0] ?? DEFAULT_FORM;
}

/** Whether this server writes `form`. */
export function isRenderedForm(form: string): form is RenderedForm {
  return (RENDERED_FORMS as readonly string[]).includes(form);
}

/** `form` when this server writes it, else xml: the form Merritt falls back to for errors. */
export function errorForm(form: string | undefined): RenderedForm {
  return form !== undefined && isRenderedForm(form) ? form : DEFAULT_FORM;
}

const INDENT = '    ';

function xmlNode(node: StateNode, prefix: string, level: number): string {
  const pad = INDENT.repeat(level);
  const name = `${prefix}:${node.name}`;
  if (node.children === undefined) {
    return `\n${pad}<${name}>${escapeXml(String(node.value ?? ''))}</${name}>`;
  }
  const inner = node.children.map((child) => xmlNode(child, prefix, level + 1)).join('');
  return `\n${pad}<${name}>${inner}\n${pad}</${name}>`;
}

function toXml(doc: StateDocument): string {
  const root = `${doc.prefix}:${doc.root}`;
  const inner = doc.children.map((child) => xmlNode(child, doc.prefix, 1)).join('');
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<${root} xmlns:${doc.prefix}='${escapeXml(doc.namespace)}'>${inner}\n</${root}>`
  );
}

/** org.json's `stringToValue`: the text of an element becomes a boolean or number when it reads as one. */
function jsonScalar(value: string | number | boolean | undefined): unknown {
  if (typeof value !== 'string') return value ?? '';
  const text = value.trim();
  if (text === 'true' || text === 'false') return text === 'true';
  if (/^-?(?:0|[1-9][0-9]{0,14})(?:\.[0-9]+)?$/.test(text)) return Number(text);
  return text;
}

/** Children as org.json accumulates them: a repeated name becomes an array. */
function jsonObject(children: readonly StateNode[], prefix: string): Record<string, unknown> {
  const object: Record<string, unknown> = {};
  for (const child of children) {
    const key = `${prefix}:${child.name}`;
    const value =
      child.children === undefined
        ? jsonScalar(child.value)
        : child.children.length === 0
          ? ''
          : jsonObject(child.children, prefix);
    const had = object[key];
    object[key] =
      had === undefined ? value : Array.isArray(had) ? [...(had as unknown[]), value] : [had, value];
  }
  return object;
}

function toJson(doc: StateDocument): string {
  const body = { [`xmlns:${doc.prefix}`]: doc.namespace, ...jsonObject(doc.children, doc.prefix) };
  return JSON.stringify({ [`${doc.prefix}:${doc.root}`]: body });
}

function collectLeaves(nodes: readonly StateNode[], into: Map<string, string[]>): void {
  for (const node of nodes) {
    if (node.children !== undefined) {
      collectLeaves(node.children, into);
      continue;
    }
    const values = into.get(node.name) ?? [];
    // One value a line: a line break inside a value would start a false entry.
    values.push(String(node.value ?? '').replace(/\r\n|\r|\n/g, ' '));
    into.set(node.name, values);
  }
}

function toAnvl(doc: StateDocument): string {
  const leaves = new Map<string, string[]>();
  collectLeaves(doc.children, leaves);
  return [...leaves].flatMap(([name, values]) => values.map((value) => `${name}: ${value}\n`)).join('');
}

/** `doc` written in `form`, with the content type to answer it with. */
export function renderState(doc: StateDocument, form: RenderedForm): { contentType: string; body: string } {
  const body = form === 'json' ? toJson(doc) : form === 'anvl' ? toAnvl(doc) : toXml(doc);
  return { contentType: CONTENT_TYPES[form], body };
}

/** mrt-core's `DateUtil.getIsoDate`: `yyyy-MM-ddTHH:mm:ss+00:00` (seconds; the offset with a colon). */
export function merrittDate(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, '+00:00');
}
