import { describe, expect, it } from 'vitest';
import { traceLink } from '../../../src/http/dashboard/trace-link.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE}-00f067aa0ba902b7-01`;

describe('a stored traceparent as a Jaeger link', () => {
  it('links to <jaeger>/trace/<traceId>, with or without a trailing slash on the setting', () => {
    expect(traceLink('http://jaeger:16686', TRACEPARENT)).toEqual({
      traceId: TRACE,
      url: `http://jaeger:16686/trace/${TRACE}`,
    });
    expect(traceLink('https://ops.example/jaeger/', TRACEPARENT)?.url).toBe(
      `https://ops.example/jaeger/trace/${TRACE}`,
    );
  });

  it('gives the trace id alone without a Jaeger URL', () => {
    expect(traceLink(undefined, TRACEPARENT)).toEqual({ traceId: TRACE });
  });

  it('gives nothing for a missing, malformed or all-zero traceparent', () => {
    for (const value of [
      undefined,
      null,
      42,
      '',
      'not-a-traceparent',
      `00-${'0'.repeat(32)}-00f067aa0ba902b7-01`,
    ])
      expect(traceLink('http://jaeger:16686', value)).toBeUndefined();
  });
});
