import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config/config.js';
import { IngestConfigError } from '../../../src/config/ingest.js';

describe('configuration from the environment', () => {
  it('has embedded defaults under the data directory', () => {
    const config = loadConfig({ MRTQ_DATA_DIR: '/srv/mrtq' });
    expect(config.zkConnect).toBeUndefined();
    expect(config.ingest).toMatchObject({
      workRoot: '/srv/mrtq/work',
      maxUsedFraction: 0.7,
      minter: { kind: 'local' },
      storage: { kind: 'local' },
      inventory: { kind: 'local' },
      fetch: { roots: ['/srv/mrtq/incoming'] },
    });
    expect(config.ingest.smtp).toBeUndefined();
  });

  it('selects HTTP services and SMTP when configured', () => {
    const config = loadConfig({
      MRTQ_DATA_DIR: '/d',
      MRTQ_STORAGE_URL: 'http://127.0.0.1:9000/store',
      MRTQ_SMTP_HOST: '127.0.0.1',
      MRTQ_SMTP_PORT: '2525',
      MRTQ_FILE_ROOTS: '/a:/b',
    });
    expect(config.ingest.storage).toEqual({ kind: 'http', url: 'http://127.0.0.1:9000/store' });
    expect(config.ingest.smtp).toMatchObject({ host: '127.0.0.1', port: 2525 });
    expect(config.ingest.fetch.roots).toEqual(['/a', '/b']);
  });

  it('names every bad setting at once', () => {
    let error: unknown;
    try {
      loadConfig({ MRTQ_MAX_USED_FRACTION: '1.5', MRTQ_FETCH_RETRIES: '-1', MRTQ_MINTER_URL: 'ftp://x' });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(IngestConfigError);
    const problems = (error as IngestConfigError).problems.join('\n');
    expect(problems).toContain('MRTQ_MAX_USED_FRACTION');
    expect(problems).toContain('MRTQ_FETCH_RETRIES');
    expect(problems).toContain('MRTQ_MINTER_URL');
  });

  it('bounds provisioning: a wait limit of 24 h unless set, a largest object only when set', () => {
    const defaults = loadConfig({}).ingest;
    expect(defaults.spaceWaitLimitMs).toBe(86_400_000);
    expect(defaults.maxObjectBytes).toBeUndefined();
    const set = loadConfig({
      MRTQ_SPACE_WAIT_LIMIT_MS: '60000',
      MRTQ_MAX_OBJECT_BYTES: '1099511627776',
    }).ingest;
    expect(set).toMatchObject({ spaceWaitLimitMs: 60_000, maxObjectBytes: 1_099_511_627_776 });
    const bad = () => loadConfig({ MRTQ_SPACE_WAIT_LIMIT_MS: '0', MRTQ_MAX_OBJECT_BYTES: 'big' });
    expect(bad).toThrow(/MRTQ_SPACE_WAIT_LIMIT_MS/);
    expect(bad).toThrow(/MRTQ_MAX_OBJECT_BYTES/);
  });

  it('refuses a bad session timeout by name', () => {
    expect(() => loadConfig({ ZK_SESSION_TIMEOUT_MS: 'soon' })).toThrow(/ZK_SESSION_TIMEOUT_MS/);
  });

  it('takes the log level and pretty printing, and names a bad value', () => {
    expect(loadConfig({})).toMatchObject({ logLevel: 'info', logPretty: undefined });
    expect(loadConfig({ LOG_LEVEL: 'DEBUG', LOG_PRETTY: 'true' })).toMatchObject({
      logLevel: 'debug',
      logPretty: true,
    });
    expect(() => loadConfig({ LOG_LEVEL: 'loud' })).toThrow(
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
    );
    expect(() => loadConfig({ LOG_PRETTY: 'yes' })).toThrow('LOG_PRETTY must be true or false, got "yes"');
  });

  it('takes a Jaeger URL for trace links, without its trailing slash, and refuses one that is not http(s)', () => {
    expect(loadConfig({}).jaegerUrl).toBeUndefined();
    expect(loadConfig({ MRTQ_JAEGER_URL: 'http://jaeger.example:16686/' }).jaegerUrl).toBe(
      'http://jaeger.example:16686',
    );
    expect(loadConfig({ MRTQ_JAEGER_URL: 'https://ops.example/jaeger' }).jaegerUrl).toBe(
      'https://ops.example/jaeger',
    );
    expect(() => loadConfig({ MRTQ_JAEGER_URL: 'ftp://jaeger.example' })).toThrow(
      'MRTQ_JAEGER_URL must be an http(s) URL, got "ftp://jaeger.example"',
    );
    expect(() => loadConfig({ MRTQ_JAEGER_URL: 'jaeger:16686' })).toThrow(/MRTQ_JAEGER_URL/);
  });
});

describe('a config file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mrtq-config-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('supplies settings the environment does not override', () => {
    const file = join(dir, 'ok.yaml');
    writeFileSync(file, 'MRTQ_HTTP_PORT: 9999\nMRTQ_MAX_USED_FRACTION: 0.5\nLOG_LEVEL: debug\n');
    const config = loadConfig({ MRTQ_CONFIG: file, LOG_LEVEL: 'warn' });
    expect(config).toMatchObject({ httpPort: 9999, logLevel: 'warn', ingest: { maxUsedFraction: 0.5 } });
  });

  it('names every unknown setting and bad value', () => {
    const file = join(dir, 'bad.yaml');
    writeFileSync(file, 'MRTQ_HTTP_PROT: 1\nMRTQ_FILE_ROOTS: [a, b]\n');
    expect(() => loadConfig({}, file)).toThrow(
      /MRTQ_HTTP_PROT: unknown setting[\s\S]*MRTQ_FILE_ROOTS: expected a single value/,
    );
  });
});
