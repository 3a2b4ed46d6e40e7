import { describe, expect, it } from 'vitest';
import type { Submission } from '../../../src/queue/tree/records.js';
import { parseCheckm } from '../../../src/steps/formats/checkm.js';
import type { Profile } from '../../../src/steps/ingest-contracts.js';
import { entrySpec, singleObjectSpec, submissionKind } from '../../../src/steps/batch/expand-specs.js';

const profile: Profile = {
  name: 'demo',
  collection: 'demo_c',
  priority: 7,
  notifications: [],
  responseType: 'xml',
};
const submission = (over: Partial<Submission> = {}): Submission => ({
  profile_name: 'demo',
  submitter: 'ann',
  payload_url: 'http://e.org/files/a%20b.txt',
  type: 'file',
  ...over,
});

describe('submission kinds', () => {
  it.each([
    ['file', 'file'],
    ['Container', 'container'],
    ['object_manifest', 'object-manifest'],
    ['batch-manifest', 'batch-manifest'],
    ['container-batch-manifest', 'container-batch-manifest'],
    ['single-file-batch-manifest', 'single-file-batch-manifest'],
    // mrt-ingest's PackageTypeEnum names, as its HandlerSubmit writes them into a submission
    ['manifest', 'object-manifest'],
    ['batchManifest', 'batch-manifest'],
    ['batchManifestContainer', 'container-batch-manifest'],
    ['batchManifestFile', 'single-file-batch-manifest'],
    // this engine's names before it took Merritt's, still in older trees
    ['manifest-of-manifests', 'batch-manifest'],
    ['manifest-of-containers', 'container-batch-manifest'],
  ])('reads %j as %j', (type, kind) => {
    expect(submissionKind(type)).toBe(kind);
  });

  it('refuses an unknown type, listing the known ones', () => {
    expect(() => submissionKind('tarball')).toThrow(
      /unknown submission type "tarball" \(known: file, container/,
    );
    expect(() => submissionKind('constructor')).toThrow(/unknown submission type/);
  });
});

describe('job specs', () => {
  it('a single file carries the profile, the file fields and the ERC', () => {
    const spec = singleObjectSpec(
      {
        profile,
        submission: submission({
          digest_type: 'SHA-256',
          digest_value: 'A'.repeat(64),
          file_size: '12',
          local_id: 'loc-1',
          erc_who: 'Ann',
          erc_what: '',
          submission_mode: 'add',
        }),
      },
      'file',
    );
    expect(spec).toEqual({
      position: 0,
      priority: 7,
      configuration: {
        profile_name: 'demo',
        submitter: 'ann',
        payload_url: 'http://e.org/files/a%20b.txt',
        payload_type: 'file',
        response_type: 'xml',
        collection: 'demo_c',
        submission_mode: 'add',
        local_id: 'loc-1',
        digest_type: 'sha256',
        digest_value: 'a'.repeat(64),
        file_size: 12,
      },
      identifiers: { primary_id: '', local_id: ['loc-1'] },
      metadata: { erc_who: 'Ann' },
    });
  });

  it('a single file with an unusable digest or file name is created rejected', () => {
    const bad = singleObjectSpec(
      { profile, submission: submission({ digest_type: 'crc', digest_value: '1' }) },
      'file',
    );
    expect(bad.rejected).toMatch(/unknown hash algorithm "crc"/);
    const escaping = singleObjectSpec(
      { profile, submission: submission({ file_name: '../x' }) },
      'container',
    );
    expect(escaping.rejected).toMatch(/"\.\.\/x" is not allowed/);
  });

  it('an object manifest job has payload type object_manifest and no file fields', () => {
    const spec = singleObjectSpec(
      { profile, submission: submission({ type: 'object-manifest', file_size: 3 }) },
      'object-manifest',
    );
    expect(spec.configuration.payload_type).toBe('object_manifest');
    expect(spec.configuration.file_size).toBeUndefined();
    expect(spec.identifiers).toBeUndefined();
  });

  it('batch manifest entries take identifiers, ERC and (for containers) the file fields', () => {
    const manifest = parseCheckm(
      '%checkm_0.7\n%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | nfo:fileName | mrt:primaryIdentifier | mrt:localIdentifier | mrt:creator | mrt:title | mrt:date\n' +
        `http://e.org/c.zip | md5 | ${'0'.repeat(32)} | 99 | c.zip | ark:/9/x | L1 | Bo | T | 2020\n`,
    );
    const entry = manifest.entries[0]!;
    const container = entrySpec({ profile, submission: submission() }, 'container-batch-manifest', entry, 4);
    expect(container).toMatchObject({
      position: 4,
      configuration: {
        payload_type: 'container',
        payload_url: 'http://e.org/c.zip',
        local_id: 'L1',
        file_size: 99,
        file_name: 'c.zip',
        digest_type: 'md5',
      },
      identifiers: { primary_id: 'ark:/9/x', local_id: ['L1'] },
      metadata: { erc_who: 'Bo', erc_what: 'T', erc_when: '2020' },
    });
    const object = entrySpec({ profile, submission: submission() }, 'batch-manifest', entry, 4);
    expect(object.configuration.payload_type).toBe('object_manifest');
    expect(object.configuration.digest_type).toBeUndefined();
  });

  it('a single-file batch manifest row is a one-file object with its own ids, ERC and file fields', () => {
    const manifest = parseCheckm(
      '#%checkm_0.7\n#%profile | http://uc3.cdlib.org/registry/ingest/manifest/mrt-single-file-batch-manifest\n' +
        '#%fields | nfo:fileUrl | nfo:hashAlgorithm | nfo:hashValue | nfo:fileSize | nfo:fileLastModified | nfo:fileName | mrt:primaryIdentifier | mrt:localIdentifier | mrt:creator | mrt:title | mrt:date\n' +
        `http://e.org/b.pdf | MD5 | ${'A'.repeat(32)} | 7 | | book.pdf | | L1; L2 ;L1 | Bo | A book | 2021\n#%eof\n`,
    );
    const spec = entrySpec(
      { profile, submission: submission() },
      'single-file-batch-manifest',
      manifest.entries[0]!,
      0,
    );
    expect(spec).toMatchObject({
      configuration: {
        payload_type: 'file',
        payload_url: 'http://e.org/b.pdf',
        file_name: 'book.pdf',
        file_size: 7,
        digest_type: 'md5',
        digest_value: 'a'.repeat(32),
        local_id: 'L1;L2',
      },
      identifiers: { primary_id: '', local_id: ['L1', 'L2'] },
      metadata: { erc_who: 'Bo', erc_what: 'A book', erc_when: '2021' },
    });
  });

  it("a submission's ;-separated local ids are split and de-duplicated; its note and primary id carried", () => {
    const spec = singleObjectSpec(
      {
        profile,
        submission: submission({
          local_id: ' a ;b;; a',
          primary_id: 'ark:/99999/fk4x',
          note: 'n',
          creator: 'x',
        }),
      },
      'file',
    );
    expect(spec.configuration.local_id).toBe('a;b');
    expect(spec.configuration.note).toBe('n');
    expect(spec.identifiers).toEqual({ primary_id: 'ark:/99999/fk4x', local_id: ['a', 'b'] });
  });
});
