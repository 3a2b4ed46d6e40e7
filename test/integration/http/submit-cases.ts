import { submitBody } from '../../../src/http/schemas.js';

const MD5 = 'd41d8cd98f00b204e9800998ecf8427e';
/** A valid submission of three simulated jobs. */
export const SUBMIT = { profile: 'demo', submitter: 'ann', payloadUrl: 'sim:3', type: 'file' };

/** Bad values for each field of the submit body, generated from its schema, plus unknown fields. */
export function malformedSubmissions(): [string, string, Record<string, unknown>][] {
  const properties = submitBody.properties as Record<
    string,
    { type: string; pattern?: string; format?: string }
  >;
  const cases: [string, string, Record<string, unknown>][] = [];
  // A digest field is checked with a valid partner (one without the other is its own case).
  const partner: Record<string, object> = {
    digest_type: { digest_value: MD5 },
    digest_value: { digest_type: 'md5' },
  };
  for (const [field, schema] of Object.entries(properties)) {
    const base = { ...SUBMIT, ...partner[field] };
    cases.push([field, 'a number', { ...base, [field]: 42 }]);
    cases.push([field, 'null', { ...base, [field]: null }]);
    cases.push([field, 'empty', { ...base, [field]: '' }]);
    if (schema.pattern || schema.format)
      cases.push([field, 'malformed text', { ...base, [field]: 'a b/c:' }]);
  }
  for (const field of submitBody.required as string[]) {
    const { [field]: _dropped, ...rest } = SUBMIT as Record<string, unknown>;
    cases.push([field, 'missing', rest]);
  }
  cases.push(['type', 'an unknown type', { ...SUBMIT, type: 'zip' }]);
  cases.push(['digest_value', 'missing with digest_type', { ...SUBMIT, digest_type: 'md5' }]);
  cases.push(['bogus', 'an unknown field', { ...SUBMIT, bogus: 'x' }]);
  return cases;
}
