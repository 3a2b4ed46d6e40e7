import { jobStateDocument, type JobResult } from '../services/callback.js';
import type { Profile } from '../ingest-contracts.js';
import { stateJson, stateXml } from '../formats/mail-state.js';

export type { JobResult } from '../services/callback.js';

export interface FormattedResult {
  contentType: string;
  body: string;
}

/**
 * HandlerCallback sends `Content-Type: application/json` whatever the body's format
 * (merritt-protocols.md §4, appendix 6); receivers written for Merritt expect exactly that.
 */
export const CALLBACK_CONTENT_TYPE = 'application/json';

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

/**
 * The job result in the profile's format (`NotificationFormat`, or `responseType` in a YAML
 * profile): Merritt's JobState as JSON (`{"job:jobState":{…}}`, the default) or XML; Turtle is
 * this engine's own (Merritt's formatters have none). Always sent as {@link CALLBACK_CONTENT_TYPE}.
 */
export function formatJobResult(result: JobResult, type: Profile['responseType']): FormattedResult {
  const contentType = CALLBACK_CONTENT_TYPE;
  switch (type) {
    case 'xml':
      return { contentType, body: stateXml(jobStateDocument(result)) };
    case 'turtle':
      return { contentType, body: formatTurtle(result) };
    default:
      return { contentType, body: stateJson(jobStateDocument(result)) };
  }
}
