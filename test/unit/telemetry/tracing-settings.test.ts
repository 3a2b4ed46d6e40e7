import { describe, expect, it } from 'vitest';
import { startTracing, tracingSettings } from '../../../otel/tracing.js';

describe('tracing settings from the OTEL_* environment', () => {
  it('is off without an endpoint, and starting it then does nothing', async () => {
    const settings = tracingSettings({});
    expect(settings).toMatchObject({ endpoint: undefined, protocol: 'http/protobuf', serviceName: 'mrtq' });
    expect(settings.serviceVersion).toMatch(/^\d+\.\d+\.\d+/);
    const tracing = await startTracing(settings, { warn: () => expect.unreachable() });
    expect(tracing.enabled).toBe(false);
    await tracing.shutdown();
  });

  it('takes the endpoint, protocol and service name', () => {
    expect(
      tracingSettings({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://jaeger:4318',
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'ingest-east',
      }),
    ).toMatchObject({ endpoint: 'http://jaeger:4318', protocol: 'http/json', serviceName: 'ingest-east' });
    expect(tracingSettings({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'https://c/v1/traces' }).endpoint).toBe(
      'https://c/v1/traces',
    );
  });

  it('stays off when OTEL_SDK_DISABLED is true, even with an endpoint', async () => {
    const settings = tracingSettings({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://x:4318',
      OTEL_SDK_DISABLED: 'true',
    });
    expect((await startTracing(settings, { warn: () => undefined })).enabled).toBe(false);
  });

  it('names the variable of a bad value', () => {
    expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_ENDPOINT: 'jaeger:4318' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT must be an http\(s\) URL/,
    );
    expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(
      'OTEL_EXPORTER_OTLP_PROTOCOL must be one of http/protobuf, http/json, got "grpc"',
    );
    expect(() => tracingSettings({ OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'udp' })).toThrow(
      /^OTEL_EXPORTER_OTLP_TRACES_PROTOCOL/,
    );
  });
});
