import { describe, expect, it } from 'vitest';
import { formatJobResult, turtleString, type JobResult } from '../../../src/steps/job/notify-format.js';

const result: JobResult = {
  jobId: 'jid0000000007',
  batchId: 'bid0000000002',
  batchUuid: 'u-1',
  profile: 'demo_profile',
  submitter: 'jdoe',
  status: 'completed',
  primaryIdentifier: 'ark:/99999/fk4abc',
  localIdentifiers: ['loc "1"', 'a&b<c>'],
  version: 2,
  manifestUrl: 'file:///data/store/x/v2/manifest.checkm',
  fileCount: 3,
  totalBytes: 1234,
  title: 'Line one\nline "two" \\ back',
  completionDate: new Date('2026-08-06T20:50:59Z'),
  priority: 5,
  persistentUrl: 'http://n2t.net/ark:/99999/fk4abc',
};

/** Reads the string literals of a Turtle document back (ECHAR and UCHAR), refusing malformed ones. */
function turtleLiterals(doc: string): string[] {
  const literals: string[] = [];
  const pattern = /"((?:[^"\\\n\r]|\\[tbnrf"'\\]|\\u[0-9A-F]{4})*)"/g;
  for (const match of doc.matchAll(pattern)) {
    literals.push(
      match[1]!.replace(/\\u([0-9A-F]{4})|\\(.)/g, (_, hex: string | undefined, c: string | undefined) =>
        hex
          ? String.fromCharCode(parseInt(hex, 16))
          : ({ t: '\t', b: '\b', n: '\n', r: '\r', f: '\f' }[c!] ?? c!),
      ),
    );
  }
  return literals;
}

describe('job results for callbacks', () => {
  it("JSON (merritt-protocols.md §4): Merritt's JobState, job:-prefixed, as org.json writes it", () => {
    const { contentType, body } = formatJobResult(result, 'json');
    expect(contentType).toBe('application/json');
    expect(JSON.parse(body)).toEqual({
      'job:jobState': {
        'xmlns:job': 'http://uc3.cdlib.org/ontology/mrt/ingest/job',
        'job:jobID': 'jid0000000007',
        'job:completionDate': '2026-08-06T20:50:59+00:00',
        'job:jobStatus': 'COMPLETED',
        'job:primaryID': 'ark:/99999/fk4abc',
        'job:localID': 'loc "1";a&b<c>',
        'job:versionID': 2,
        'job:objectTitle': 'Line one\nline "two" \\ back',
        'job:queuePriority': '05',
        'job:retainTargetURL': false,
        'job:persistentURL': 'http://n2t.net/ark:/99999/fk4abc',
      },
    });
  });

  it('XML: one job:-prefixed element per field, values escaped, still sent as application/json', () => {
    const { contentType, body } = formatJobResult(result, 'xml');
    expect(contentType).toBe('application/json');
    expect(body).toContain('<job:jobState xmlns:job="http://uc3.cdlib.org/ontology/mrt/ingest/job">');
    expect(body).toContain('<job:primaryID>ark:/99999/fk4abc</job:primaryID>');
    expect(body).toContain('<job:localID>loc &quot;1&quot;;a&amp;b&lt;c&gt;</job:localID>');
    expect(body).toContain('<job:versionID>2</job:versionID>');
    // Balanced: every opened element is closed, nothing unescaped leaks.
    const opened = body.match(/<([a-zA-Z:]+)[ >]/g)!.length;
    const closed = body.match(/<\/[a-zA-Z:]+>/g)!.length;
    expect(opened).toBe(closed);
  });

  it('Turtle: declared prefixes, one subject, every literal escaped and reading back', () => {
    const { contentType, body } = formatJobResult(result, 'turtle');
    expect(contentType).toBe('application/json');
    const prefixes = [...body.matchAll(/^@prefix (\w+): <[^>\s]+> \.$/gm)].map((m) => m[1]);
    const bare = body
      .replace(/^@prefix.*$/gm, '')
      .replace(/<[^>]*>/g, '')
      .replace(/"(?:[^"\\]|\\.)*"/g, '');
    const used = new Set([...bare.matchAll(/\b(\w+):[A-Za-z]/g)].map((m) => m[1]));
    expect(used).toEqual(new Set(['mrt', 'dc']));
    for (const prefix of used) expect(prefixes).toContain(prefix);
    expect(body).toMatch(/^<urn:merritt:job:jid0000000007>$/m);
    expect(body.trimEnd().endsWith(' .')).toBe(true);
    const literals = turtleLiterals(body);
    expect(literals).toContain('loc "1"');
    expect(literals).toContain('Line one\nline "two" \\ back');
    expect(body).toMatch(/mrt:version 2 ;/);
    // No raw newline inside a literal: every line outside the header is a predicate-object line.
    const statements = body
      .split('\n')
      .slice(4)
      .filter((l) => l.trim() !== '');
    for (const line of statements)
      expect(line).toMatch(/^ {4}(a mrt:IngestJob|[a-z]+:[A-Za-z]+ ("([^"\\]|\\.)*"|\d+)) [;.]$/);
  });

  it('escapes control characters in Turtle strings as \\u escapes', () => {
    expect(turtleString('a\u0001b\tc')).toBe('"a\\u0001b\\tc"');
  });
});
