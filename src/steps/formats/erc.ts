import { join } from 'node:path';
import type { Erc } from '../ingest-contracts.js';
import { writeFileFresh } from '../workdir/files.js';

/** Where the processing step writes an object's ERC and Dublin Core, relative to the working dir. */
export const ERC_FILE = 'system/mrt-erc.txt';
export const DC_FILE = 'system/mrt-dc.xml';

/** What the ERC and Dublin Core files describe. */
export interface ObjectDescription {
  ark: string;
  localIds: string[];
  erc: Erc;
}

/** ERC's code for a value nobody gave: "unassigned". */
const UNASSIGNED = '(:unas)';

/** An ANVL value: one line, or continuation lines that start with a space (ANVL folding). */
function anvlValue(value: string | undefined): string {
  const lines = (value ?? '')
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  return lines.length === 0 ? UNASSIGNED : lines.join('\n ');
}

function whereValues(object: ObjectDescription): string[] {
  const given = object.erc.where?.trim();
  const values = [object.ark, ...object.localIds, ...(given ? [given] : [])];
  return [...new Set(values)];
}

/** `mrt-erc.txt`: the ERC kernel as ANVL; `where` lists the ark, then the local ids. */
export function formatErc(object: ObjectDescription): string {
  const lines = [
    'erc:',
    `who: ${anvlValue(object.erc.who)}`,
    `what: ${anvlValue(object.erc.what)}`,
    `when: ${anvlValue(object.erc.when)}`,
    ...whereValues(object).map((where) => `where: ${anvlValue(where)}`),
  ];
  return `${lines.join('\n')}\n`;
}

/** Characters XML 1.0 cannot carry at all (escaping does not help): dropped. */
// eslint-disable-next-line no-control-regex
const NOT_XML = /[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

/** Text safe inside an XML element or a quoted attribute. */
export function escapeXml(text: string): string {
  return text
    .replace(NOT_XML, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** `mrt-dc.xml`: simple Dublin Core (creator, title, date, identifiers), empty elements left out. */
export function formatDublinCore(object: ObjectDescription): string {
  const elements: Array<[string, string | undefined]> = [
    ['creator', object.erc.who],
    ['title', object.erc.what],
    ['date', object.erc.when],
    ...whereValues(object).map((id): [string, string] => ['identifier', id]),
  ];
  const body = elements
    .filter(([, value]) => value !== undefined && value.trim() !== '')
    .map(([name, value]) => `  <dc:${name}>${escapeXml(value!.trim())}</dc:${name}>`);
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<dc:dc xmlns:dc="http://purl.org/dc/elements/1.1/">',
    ...body,
    '</dc:dc>',
    '',
  ].join('\n');
}

/**
 * Writes both files into the working directory (as new files, writeFileFresh: a re-run after a
 * crash writes the same bytes again; without an fsync: the store makes what it stores durable;
 * never in place: the store hard-links them into the version) and returns their
 * paths relative to it with their bytes, so they are described without being read back. Nothing
 * time-dependent goes in: the same object always gives the same files, hence the same storage
 * manifest.
 */
export async function writeErcFiles(
  workDir: string,
  object: ObjectDescription,
): Promise<Array<{ path: string; data: Buffer }>> {
  const files = [
    { path: ERC_FILE, data: Buffer.from(formatErc(object)) },
    { path: DC_FILE, data: Buffer.from(formatDublinCore(object)) },
  ];
  await Promise.all(files.map((file) => writeFileFresh(join(workDir, file.path), file.data)));
  return files;
}
