import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as an OTLP/HTTP JSON export carried it, flattened for assertions. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** Empty for a root span. */
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
  /** 0 unset, 1 ok, 2 error. */
  status: { code: number; message?: string };
  links: { traceId: string; spanId: string }[];
  /** Attributes of the resource that sent it (service.name, process.pid…). */
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** Base endpoint, as OTEL_EXPORTER_OTLP_ENDPOINT (exporters append /v1/traces). */
  url: string;
  spans(): ReceivedSpan[];
  /** Bodies of protobuf exports (decoded only as far as the tests need: by looking for strings). */
  protobufBodies(): Buffer[];
  requests(): number;
  close(): Promise<void>;
}

interface AnyValue {
  stringValue?: string;
  intValue?: number | string;
  doubleValue?: number;
  boolValue?: boolean;
  arrayValue?: { values?: AnyValue[] };
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface ExportRequest {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        attributes?: KeyValue[];
        status?: { code?: number; message?: string };
        links?: { traceId: string; spanId: string }[];
      }[];
    }[];
  }[];
}

function valueOf(value: AnyValue): unknown {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  return undefined;
}

function attributesOf(list: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, valueOf(kv.value)]));
}

function flatten(request: ExportRequest): ReceivedSpan[] {
  return (request.resourceSpans ?? []).flatMap((rs) => {
    const resource = attributesOf(rs.resource?.attributes);
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((span) => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        attributes: attributesOf(span.attributes),
        status: { code: span.status?.code ?? 0, message: span.status?.message },
        links: span.links ?? [],
        resource,
      })),
    );
  });
}

async function body(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * A real OTLP/HTTP trace receiver on loopback: `POST /v1/traces` with JSON (decoded fully) or
 * protobuf (kept as bytes), answered 200 with an empty export response, as a collector does.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const received: ReceivedSpan[] = [];
  const protobuf: Buffer[] = [];
  let requests = 0;
  const server = createServer((req, res) => {
    void (async () => {
      const data = await body(req);
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      requests++;
      const type = req.headers['content-type'] ?? '';
      if (type.startsWith('application/json')) {
        received.push(...flatten(JSON.parse(data.toString('utf8')) as ExportRequest));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      } else if (type.startsWith('application/x-protobuf')) {
        protobuf.push(data);
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      } else {
        res.writeHead(415).end();
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...received],
    protobufBodies: () => [...protobuf],
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
