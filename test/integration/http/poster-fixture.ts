import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { createHttpApi, type HttpApiDeps } from '../../../src/http/index.js';
import { hashPassword } from '../../../src/auth/password-hash.js';
import type { QueueContext } from '../../../src/queue/tree/context.js';
import { apiDeps } from './api-fixture.js';

/** The user Merritt's UI and Ruby client authenticate as in these tests. */
export const USER = 'merritt-ui';
export const PASSWORD = 'pässword: with a colon';

export const basicAuth = (user = USER, password = PASSWORD): string =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** A listening API with an upload directory and a credentials file of {@link USER}. */
export interface PosterServer {
  url: string;
  uploadDir: string;
  close(): Promise<void>;
}

export async function startPoster(
  queue: QueueContext,
  overrides: Partial<HttpApiDeps> = {},
): Promise<PosterServer> {
  const dir = mkdtempSync(join(tmpdir(), 'mrtq-poster-'));
  const credentials = join(dir, 'credentials');
  writeFileSync(credentials, `# Merritt's clients\n${USER}:${await hashPassword(PASSWORD)}\n`);
  const uploadDir = join(dir, 'uploads');
  const app = createHttpApi(await apiDeps(queue, { uploadDir, basicAuthFile: credentials, ...overrides }));
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = app.server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    uploadDir,
    async close() {
      await app.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A form as Merritt's clients post it: text fields, and one file part. */
export function formOf(
  fields: Record<string, string>,
  file?: { field?: string; name: string; content: string | Buffer; type?: string },
): FormData {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  if (file) {
    const blob = new Blob([file.content], { type: file.type ?? 'application/octet-stream' });
    form.append(file.field ?? 'file', blob, file.name);
  }
  return form;
}

export interface Posted {
  status: number;
  headers: Headers;
  text: string;
}

export async function post(
  url: string,
  body: FormData | string,
  headers: Record<string, string> = {},
): Promise<Posted> {
  const res = await fetch(url, { method: 'POST', body, headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** An element of a parsed XML document. */
export interface XmlElement {
  name: string;
  attributes: Record<string, string>;
  children: XmlElement[];
  text: string;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const decode = (text: string): string =>
  text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (_m, name: string) =>
    name.startsWith('#x')
      ? String.fromCodePoint(parseInt(name.slice(2), 16))
      : name.startsWith('#')
        ? String.fromCodePoint(Number(name.slice(1)))
        : (ENTITIES[name] ?? `&${name};`),
  );

/**
 * A strict little XML reader for the answers (no XML library is installed): one prolog, nested
 * elements with quoted attributes, text with entities; anything else, or a mismatched end tag,
 * throws. What Nokogiri's strict mode (mrt-dashboard) would refuse, this refuses too.
 */
export function parseXml(xml: string): XmlElement {
  const prolog = /^<\?xml version="1\.0" encoding="UTF-8"\?>\n/.exec(xml);
  if (!prolog) throw new Error('no XML declaration');
  let at = prolog[0].length;
  const stack: XmlElement[] = [];
  let root: XmlElement | undefined;
  const token = /<\/([\w.:-]+)\s*>|<([\w.:-]+)((?:\s+[\w.:-]+\s*=\s*(?:'[^']*'|"[^"]*"))*)\s*(\/?)>|([^<]+)/y;
  while (at < xml.length) {
    token.lastIndex = at;
    const m = token.exec(xml);
    if (!m) throw new Error(`unreadable XML at ${at}: ${xml.slice(at, at + 40)}`);
    at = token.lastIndex;
    if (m[1] !== undefined) {
      const open = stack.pop();
      if (open?.name !== m[1]) throw new Error(`</${m[1]}> closes <${open?.name}>`);
      if (stack.length === 0) root = open;
    } else if (m[2] !== undefined) {
      const attributes: Record<string, string> = {};
      for (const a of (m[3] ?? '').matchAll(/([\w.:-]+)\s*=\s*(?:'([^']*)'|"([^"]*)")/g))
        attributes[a[1]!] = decode(a[2] ?? a[3] ?? '');
      const element: XmlElement = { name: m[2], attributes, children: [], text: '' };
      if (stack.length === 0 && root) throw new Error('a second root element');
      stack.at(-1)?.children.push(element);
      if (m[4] === '/') {
        if (stack.length === 0) root = element;
      } else stack.push(element);
    } else {
      const text = m[5]!;
      if (stack.length === 0) {
        if (text.trim() !== '') throw new Error('text outside the root element');
      } else stack.at(-1)!.text += decode(text);
    }
  }
  if (stack.length > 0 || !root) throw new Error('unclosed element');
  return root;
}

/** The text of each child of `element` by name (the last when repeated), trimmed. */
export function childTexts(element: XmlElement): Record<string, string> {
  return Object.fromEntries(element.children.map((child) => [child.name, child.text.trim()]));
}
