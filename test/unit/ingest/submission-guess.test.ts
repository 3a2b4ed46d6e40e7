import { describe, expect, it } from 'vitest';
import {
  checkmHeadProfile,
  guessSubmissionKind,
  kindOfManifestProfile,
} from '../../../src/steps/batch/submission-guess.js';

const REGISTRY = 'http://uc3.cdlib.org/registry/ingest/manifest';

/** A manifest head as Merritt's UI samples and its Ruby client write them. */
const manifest = (profile: string, { pipe = true, crlf = false } = {}): string =>
  [
    '#%checkm_0.7',
    pipe ? `#%profile | ${REGISTRY}/${profile}` : `#%profile ${REGISTRY}/${profile}`,
    '#%prefix | mrt: | http://merritt.cdlib.org/terms#',
    '#%prefix | nfo: | http://www.semanticdesktop.org/ontologies/2007/03/22/nfo#',
    '#%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | nfo:fileLastModified | nfo:fileName | mrt:mimeType',
    'http://e.org/a.txt | md5 | 0cc175b9c0f1b6a831c399e269772661 | 1 | | a.txt | text/plain',
    '#%eof',
    '',
  ].join(crlf ? '\r\n' : '\n');

describe('guessing a submission type as mrt-ingest does', () => {
  it.each(['a.zip', 'a.tar', 'a.tar.gz', 'a.tgz', 'a.gz', 'a.bz', 'a.bz2'])('%s is a container', (name) => {
    expect(guessSubmissionKind(name, manifest('mrt-batch-manifest'))).toBe('container');
  });

  it.each([
    ['mrt-ingest-manifest', 'object-manifest'],
    ['mrt-batch-manifest', 'batch-manifest'],
    ['mrt-container-batch-manifest', 'container-batch-manifest'],
    ['mrt-single-file-batch-manifest', 'single-file-batch-manifest'],
  ])('a manifest whose profile is %s is a %s, with or without the pipe, LF or CRLF', (profile, kind) => {
    for (const pipe of [true, false])
      for (const crlf of [true, false])
        expect(guessSubmissionKind('upload.checkm', manifest(profile, { pipe, crlf }))).toBe(kind);
  });

  it('anything else is a file: text, a manifest without a known profile, an upper-case .ZIP', () => {
    expect(guessSubmissionKind('notes.txt', 'hello\n')).toBe('file');
    expect(guessSubmissionKind('m.checkm', '#%checkm_0.7\n#%fields | nfo:fileUrl\nhttp://e.org/a\n')).toBe(
      'file',
    );
    expect(guessSubmissionKind('m.checkm', manifest('mrt-something-else'))).toBe('file');
    // mrt-ingest matches endings as written
    expect(guessSubmissionKind('A.ZIP', 'PK\u0003\u0004')).toBe('file');
  });

  it('reads the profile only from the head of a checkm text, before its first row', () => {
    expect(checkmHeadProfile(`\uFEFF${manifest('mrt-batch-manifest')}`)).toBe(
      `${REGISTRY}/mrt-batch-manifest`,
    );
    expect(checkmHeadProfile(`%checkm_0.7\n%profile | ${REGISTRY}/mrt-batch-manifest\n`)).toBe(
      `${REGISTRY}/mrt-batch-manifest`,
    );
    expect(checkmHeadProfile('#%checkm_0.7\nhttp://e.org/a\n#%profile | x\n')).toBeUndefined();
    expect(checkmHeadProfile('not a manifest\n#%profile | x\n')).toBeUndefined();
    expect(kindOfManifestProfile(undefined)).toBeUndefined();
  });
});
