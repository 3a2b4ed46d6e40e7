import { describe, expect, it } from 'vitest';
import { MerrittError } from '../../../src/http/merritt/exc.js';
import {
  kindOfFormType,
  pathObjectId,
  posterSubmission,
  readPosterFields,
  type PosterContext,
} from '../../../src/http/merritt/poster-fields.js';

const form = (fields: Record<string, string>) => new Map(Object.entries(fields));
const context: PosterContext = {
  mode: 'add',
  pathId: undefined,
  kind: 'file',
  fileName: 'a.txt',
  responseForm: undefined,
  uuid: 'bid-1',
  payloadUrl: 'file:///uploads/a.txt',
  collection: 'demo',
  now: new Date('2026-01-01T00:00:00Z'),
};

function refusal(run: () => unknown): MerrittError {
  try {
    run();
  } catch (err) {
    if (err instanceof MerrittError) return err;
    throw err;
  }
  throw new Error('not refused');
}

describe("the submission form's fields (mrt-ingest JerseyBase.getFormData)", () => {
  it("maps a type by mrt-ingest's rule: exact object-manifest, then 'contains', then the value as a kind", () => {
    expect(kindOfFormType('object-manifest')).toBe('object-manifest');
    expect(kindOfFormType('single-file-batch-manifest')).toBe('single-file-batch-manifest');
    expect(kindOfFormType('my-container-batch-manifest')).toBe('container-batch-manifest');
    expect(kindOfFormType('batch-manifest')).toBe('batch-manifest');
    expect(kindOfFormType('file')).toBe('file');
    expect(kindOfFormType('container')).toBe('container');
    // mrt-ingest's own enum names, which its integration tests post.
    expect(kindOfFormType('manifest')).toBe('object-manifest');
    expect(kindOfFormType('batchManifestContainer')).toBe('container-batch-manifest');
    expect(kindOfFormType('zip')).toBeUndefined();
  });

  it('reads every field into the engine keys, blanks as absent, unknown fields listed', () => {
    const fields = readPosterFields(
      form({
        profile: 'demo',
        submitter: 'ann',
        type: '',
        size: '42',
        creator: 'C',
        title: 'T',
        date: 'D',
        erc: 'erc:\nwho: x',
        object: 'ark:/1/obj',
        notificationFormat: 'anvl',
        retainTargetURL: 'TRUE',
        'DC.subject': 'S',
        'DC.bogus': 'ignored',
        'DataCite.resourceType': 'Image',
        mystery: 'x',
      }),
    );
    expect(fields).toMatchObject({
      profile: 'demo',
      submitter: 'ann',
      type: undefined,
      unknown: ['DC.bogus', 'mystery'],
    });
    expect(fields.keys).toEqual({
      erc_who: 'C',
      erc_what: 'T',
      erc_when: 'D',
      erc: 'erc:\nwho: x',
      primary_id: 'ark:/1/obj',
      file_size: 42,
      notification_format: 'anvl',
      retain_target_url: true,
      dc: { subject: 'S' },
      datacite_resource_type: 'Image',
    });
    // primaryIdentifier wins over object.
    expect(
      readPosterFields(form({ profile: 'p', submitter: 's', object: 'o', primaryIdentifier: 'p' })).keys
        .primary_id,
    ).toBe('p');
  });

  it('refuses what the depositor can fix, naming it', () => {
    const base = { profile: 'demo', submitter: 's' };
    expect(refusal(() => readPosterFields(form({ submitter: 's' }))).detail).toMatch(/^profile: required/);
    expect(refusal(() => readPosterFields(form({ profile: 'demo' }))).detail).toMatch(/^submitter: required/);
    expect(refusal(() => readPosterFields(form({ ...base, type: 'zip' }))).statusName).toBe(
      'REQUEST_INVALID',
    );
    expect(refusal(() => readPosterFields(form({ ...base, size: 'big' }))).detail).toContain('size "big"');
    expect(refusal(() => readPosterFields(form({ ...base, digestType: 'md5' }))).detail).toContain(
      'come together',
    );
    expect(
      refusal(() => readPosterFields(form({ ...base, digestType: 'md5', digestValue: 'abc' }))).detail,
    ).toContain('digestValue');
  });

  it('writes the submission node: the path names the object unless a field does; an update must name one', () => {
    const fields = readPosterFields(form({ profile: 'demo', submitter: 's', responseForm: 'json' }));
    const update = {
      ...context,
      mode: 'update' as const,
      pathId: pathObjectId({ scheme: 'ark', shoulder: '13030', objectid: 'm5abc' }),
    };
    expect(posterSubmission(fields, { ...update, responseForm: 'json' })).toEqual({
      profile_name: 'demo',
      submitter: 's',
      payload_url: 'file:///uploads/a.txt',
      type: 'file',
      submission_mode: 'update',
      submissionDate: '2026-01-01T00:00:00.000Z',
      batchID: 'bid-1',
      collection: 'demo',
      primary_id: 'ark:/13030/m5abc',
      file_name: 'a.txt',
      response_form: 'json',
    });
    const named = readPosterFields(form({ profile: 'demo', submitter: 's', primaryIdentifier: 'ark:/1/x' }));
    expect(posterSubmission(named, update).primary_id).toBe('ark:/1/x');
    expect(refusal(() => posterSubmission(fields, { ...context, mode: 'update' })).detail).toMatch(
      /an update names/,
    );
    // A batch manifest names its objects in its rows.
    expect(
      posterSubmission(fields, { ...context, mode: 'update', kind: 'batch-manifest' }).submission_mode,
    ).toBe('update');
    expect(pathObjectId({})).toBeUndefined();
  });
});
