import type { Span } from '@opentelemetry/api';
import { Attr, SpanName } from '../telemetry/attributes.js';
import { recordError, startChildSpan } from '../telemetry/span.js';

/**
 * A span for one request, when it is made inside traced work (a step, a transition); requests
 * made outside (consumers listing folders, watches) start none.
 */
export function requestSpan(
  operation: string,
  path: string | undefined,
  data?: Buffer,
  ops?: readonly { path: string }[],
): Span | undefined {
  const attributes: Record<string, string | number | string[]> = { [Attr.zkOperation]: operation };
  if (path !== undefined) attributes[Attr.zkPath] = path;
  if (data) attributes[Attr.zkBytes] = data.length;
  if (ops) {
    attributes[Attr.zkOps] = ops.length;
    attributes[Attr.zkPaths] = ops.slice(0, 16).map((op) => op.path);
  }
  return startChildSpan(SpanName.zk(operation), attributes);
}

export function endFailed(span: Span, outcome: string, err: unknown): void {
  span.setAttribute(Attr.zkOutcome, outcome);
  recordError(span, err);
  span.end();
}
