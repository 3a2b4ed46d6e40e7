import type { Profile } from './contracts.js';
import { escapeXml } from './erc.js';

/** What a profile's callback receives for a job (seed 003 "Notify → Completed"). */
export interface JobResult {
  jobId: string;
  batchId: string;
  /** The batch's uuid when the job's configuration carries it. */
  batchUuid?: string;
  profile: string;
  submitter: string;
  status: 'completed';
  primaryIdentifier?: string;
  localIdentifiers: string[];
  version?: number;
  manifestUrl?: string;
  fileCount?: number;
  totalBytes?: number;
  title?: string;
}

export interface FormattedResult {
  contentType: string;
  body: string;
}

function formatXml(result: JobResult): string {
  const element = (name: string, value: string | number | undefined): string[] =>
    value === undefined ? [] : [`  <${name}>${escapeXml(String(value))}</${name}>`];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<job xmlns="http://merritt.cdlib.org/ingest/job">',
    ...element('jobId', result.jobId),
    ...element('batchId', result.batchId),
    ...element('batchUuid', result.batchUuid),
    ...element('profile', result.profile),
    ...element('submitter', result.submitter),
    ...element('status', result.status),
    ...element('primaryIdentifier', result.primaryIdentifier),
    '  <localIdentifiers>',
    ...result.localIdentifiers.map((id) => `    <localIdentifier>${escapeXml(id)}</localIdentifier>`),
    '  </localIdentifiers>',
    ...element('version', result.version),
    ...element('manifestUrl', result.manifestUrl),
    ...element('fileCount', result.fileCount),
    ...element('totalBytes', result.totalBytes),
    ...element('title', result.title),
    '</job>',
    '',
  ].join('\n');
}

const TURTLE_ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  '"': '\\"',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

/** A Turtle string literal: quotes, backslashes and control characters escaped (ECHAR / UCHAR). */
export function turtleString(text: string): string {
  // eslint-disable-next-line no-control-regex
  const escaped = text.replace(/[\\"\u0000-\u001f\u007f]/g, (c) => {
    return TURTLE_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}`;
  });
  return `"${escaped}"`;
}

function formatTurtle(result: JobResult): string {
  const triples: string[] = [
    'a mrt:IngestJob',
    `mrt:jobId ${turtleString(result.jobId)}`,
    `mrt:batchId ${turtleString(result.batchId)}`,
    ...(result.batchUuid ? [`mrt:batchUuid ${turtleString(result.batchUuid)}`] : []),
    `mrt:profile ${turtleString(result.profile)}`,
    `mrt:submitter ${turtleString(result.submitter)}`,
    `mrt:status ${turtleString(result.status)}`,
    ...(result.primaryIdentifier ? [`mrt:primaryIdentifier ${turtleString(result.primaryIdentifier)}`] : []),
    ...result.localIdentifiers.map((id) => `mrt:localIdentifier ${turtleString(id)}`),
    ...(result.version !== undefined ? [`mrt:version ${result.version}`] : []),
    ...(result.manifestUrl ? [`mrt:manifestUrl ${turtleString(result.manifestUrl)}`] : []),
    ...(result.fileCount !== undefined ? [`mrt:fileCount ${result.fileCount}`] : []),
    ...(result.totalBytes !== undefined ? [`mrt:totalBytes ${result.totalBytes}`] : []),
    ...(result.title ? [`dc:title ${turtleString(result.title)}`] : []),
  ];
  return [
    '@prefix mrt: <http://merritt.cdlib.org/terms#> .',
    '@prefix dc: <http://purl.org/dc/elements/1.1/> .',
    '',
    `<urn:merritt:job:${encodeURIComponent(result.jobId)}>`,
    `    ${triples.join(' ;\n    ')} .`,
    '',
  ].join('\n');
}

/** The job result in the profile's response type, with its content type. */
export function formatJobResult(result: JobResult, type: Profile['responseType']): FormattedResult {
  switch (type) {
    case 'xml':
      return { contentType: 'application/xml; charset=utf-8', body: formatXml(result) };
    case 'turtle':
      return { contentType: 'text/turtle; charset=utf-8', body: formatTurtle(result) };
    default:
      return { contentType: 'application/json; charset=utf-8', body: `${JSON.stringify(result)}\n` };
  }
}
