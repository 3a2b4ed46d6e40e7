import { describe, expect, it } from 'vitest';
import { callbackTarget } from '../../../src/steps/services/callback.js';
import { javaDateString, merrittSubject } from '../../../src/steps/formats/mail.js';
import { parseAdminList } from '../../../src/config/ingest-settings.js';
import { stateJson } from '../../../src/steps/formats/mail-state.js';

describe('merritt-protocols.md §4: subjects, state documents, callback targets', () => {
  it('FormatterUtil.getSubject: "%s%s%s -- %s %s", with the instance in brackets when there is one', () => {
    expect(merrittSubject('', 'OK', 'Submission Processed', ['bid-1'])).toBe(
      'Ingest: OK -- Submission Processed: bid-1;',
    );
    expect(merrittSubject('stg', 'FAIL', 'Submission Queued', ['[MRT-collection] bid-2'])).toBe(
      'Ingest [stg]: FAIL -- Submission Queued: [MRT-collection] bid-2;',
    );
  });

  it('org.json quirks: one nested state is an object, several an array, none an empty string; numbers become numbers', () => {
    const doc = (n: number) => ({
      root: 'batchState',
      prefix: 'bat',
      namespace: 'ns',
      fields: [
        ['batchID', 'bid-1'],
        [
          'jobStates',
          {
            item: 'jobState',
            items: Array.from({ length: n }, (_, i) => [['localID', `${i + 7}`]] as const),
          },
        ],
      ] as const,
    });
    expect(JSON.parse(stateJson(doc(1)))).toEqual({
      'bat:batchState': {
        'xmlns:bat': 'ns',
        'bat:batchID': 'bid-1',
        'bat:jobStates': { 'bat:jobState': { 'bat:localID': 7 } },
      },
    });
    const two = JSON.parse(stateJson(doc(2))) as {
      'bat:batchState': { 'bat:jobStates': { 'bat:jobState': unknown } };
    };
    expect(two['bat:batchState']['bat:jobStates']['bat:jobState']).toEqual([
      { 'bat:localID': 7 },
      { 'bat:localID': 8 },
    ]);
    const none = JSON.parse(stateJson(doc(0))) as { 'bat:batchState': Record<string, unknown> };
    expect(none['bat:batchState']['bat:jobStates']).toBe('');
  });

  it('the callback goes to {CallbackURL}/mc/{jid}; user info becomes Basic auth', () => {
    expect(callbackTarget('https://a:b%40c@example.org/hook/', 'jid1')).toEqual({
      url: 'https://example.org/hook/mc/jid1',
      authorization: `Basic ${Buffer.from('a:b@c').toString('base64')}`,
    });
    expect(callbackTarget('http://example.org', 'jid2')).toEqual({ url: 'http://example.org/mc/jid2' });
  });

  it('admin lists split on ";" and the completion date reads as Java prints a Date', () => {
    expect(parseAdminList(' a@x.org; b@x.org;;')).toEqual(['a@x.org', 'b@x.org']);
    expect(javaDateString(new Date('2026-08-06T20:50:59Z'))).toBe('Thu Aug 06 20:50:59 UTC 2026');
  });
});
