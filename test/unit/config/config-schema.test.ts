import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/config.js';
import { findConfig } from '../../../src/config/discovery.js';
import { SETTING_NAMES } from '../../../src/config/file.js';
import { packageRoot } from '../../../src/package-root.js';

function problemsOf(load: () => unknown): string[] {
  try {
    load();
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error('no error');
}

describe('the settings schema (zod)', () => {
  it('names every bad setting at once, each with what it expected and what it got', () => {
    const problems = problemsOf(() =>
      loadConfig({
        ZK_SESSION_TIMEOUT_MS: '0',
        MRTQ_HTTP_PORT: '70000',
        LOG_LEVEL: 'loud',
        MRTQ_CONTAINERS: 'maybe',
        MRTQ_CLEANUP_INTERVAL_MS: 'hourly',
        MRTQ_MAX_USED_FRACTION: '0',
        MRTQ_LARGE_JOB_PRIORITY: '100',
        MRTQ_DEPLOYMENT: 'cloud',
        MRTQ_SMTP_SECURE: 'yes',
      }),
    );
    expect(problems).toEqual([
      'ZK_SESSION_TIMEOUT_MS must be a whole number of at least 1, got "0"',
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
      'MRTQ_CONTAINERS must be "auto" or "off", got "maybe"',
      'MRTQ_HTTP_PORT must be a port (0-65535), got "70000"',
      'MRTQ_CLEANUP_INTERVAL_MS must be a whole number of milliseconds, or off, got "hourly"',
      'MRTQ_DEPLOYMENT must be "standalone" or "merritt", got "cloud"',
      'MRTQ_MAX_USED_FRACTION must be a number above 0 and at most 1, got "0"',
      'MRTQ_LARGE_JOB_PRIORITY must be a whole number from 0 to 99, got "100"',
      'MRTQ_SMTP_SECURE must be true or false, got "yes"',
    ]);
  });

  it('keeps the defaults, treats a blank value as unset and reads off, case and spaces', () => {
    const config = loadConfig({
      MRTQ_HTTP_PORT: ' ',
      MRTQ_CLEANUP_INTERVAL_MS: 'OFF',
      LOG_PRETTY: 'TRUE',
      MRTQ_CONTAINERS: ' Off ',
      MRTQ_DATA_DIR: '/srv/mrtq',
    });
    expect(config).toMatchObject({
      httpPort: 8470,
      httpHost: '127.0.0.1',
      cleanupIntervalMs: 0,
      cleanupRetentionMs: 604_800_000,
      logPretty: true,
      containers: 'off',
      zkSessionTimeoutMs: 10_000,
      eventsBufferBytes: 8 * 1024 * 1024,
      startTimeoutMs: undefined,
      ingest: {
        fetch: { timeoutMs: 30_000, retries: 3, concurrency: 8, flushBehind: true },
        storeSync: true,
        largeJobPriority: 10,
      },
    });
  });

  it('never repeats a secret in an error', () => {
    const [problem] = problemsOf(() => loadConfig({ MRTQ_EZID_CREDENTIALS: 'apitest-secret' }));
    expect(problem).toBe('MRTQ_EZID_CREDENTIALS must be "user:password" (it has no ":")');
  });

  it('a Merritt deployment without its public URL is named after the values are valid', () => {
    expect(problemsOf(() => loadConfig({ MRTQ_DEPLOYMENT: 'merritt' }))).toEqual([
      expect.stringMatching(/^MRTQ_PUBLIC_URL must be set when MRTQ_DEPLOYMENT=merritt/),
    ]);
  });
});

describe('config files and where they are found', () => {
  const root = mkdtempSync(join(tmpdir(), 'mrtq-find-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const dir = (...parts: string[]): string => {
    const path = join(root, ...parts);
    mkdirSync(path, { recursive: true });
    return path;
  };

  it('accepts every setting the schema knows (MRTQ_DEPLOYMENT too), with paths relative to the file', () => {
    expect(SETTING_NAMES).toContain('MRTQ_DEPLOYMENT');
    expect(SETTING_NAMES).toContain('MRTQ_CLEANUP_INTERVAL_MS');
    const home = dir('relative');
    writeFileSync(
      join(home, 'mrtq.yaml'),
      'MRTQ_DATA_DIR: var\nMRTQ_FILE_ROOTS: in:/abs/in\nMRTQ_DEPLOYMENT: merritt\nMRTQ_PUBLIC_URL: http://ingest:8470/\n',
    );
    const config = loadConfig({ HOME: root }, undefined, dir('relative', 'sub'));
    expect(config.sources).toMatchObject({ file: join(home, 'mrtq.yaml'), fileFrom: 'directory', home });
    expect(config.dataDir).toBe(join(home, 'var'));
    expect(config.ingest.fetch.roots).toEqual([join(home, 'in'), '/abs/in']);
    expect(config.ingest.merritt?.publicUrl).toBe('http://ingest:8470');
  });

  it('says which bad value came from the file', () => {
    const file = join(dir('bad'), 'settings.yaml');
    writeFileSync(file, 'MRTQ_HTTP_PORT: eighty\n');
    expect(problemsOf(() => loadConfig({ MRTQ_CONFIG: file, MRTQ_FETCH_RETRIES: '-1' }))).toEqual([
      `MRTQ_HTTP_PORT must be a port (0-65535), got "eighty" (in ${file})`,
      'MRTQ_FETCH_RETRIES must be a whole number of at least 0, got "-1"',
    ]);
  });

  it('looks in --config, MRTQ_CONFIG, MRTQ_HOME, the directories upward, then the per-user file', () => {
    const project = dir('order', 'project');
    const cwd = dir('order', 'project', 'a', 'b');
    const mrtqHome = dir('order', 'home');
    const xdg = dir('order', 'xdg');
    writeFileSync(join(project, 'mrtq.yml'), '{}\n');
    writeFileSync(join(mrtqHome, 'mrtq.json'), '{}\n');
    mkdirSync(join(xdg, 'mrtq'));
    writeFileSync(join(xdg, 'mrtq', 'config.yaml'), '{}\n');
    const env = { XDG_CONFIG_HOME: xdg, MRTQ_HOME: mrtqHome, MRTQ_CONFIG: 'given.yaml' };

    expect(findConfig(env, cwd, 'flag.yaml')).toMatchObject({ file: join(cwd, 'flag.yaml'), home: mrtqHome });
    expect(findConfig(env, cwd)).toMatchObject({ file: join(cwd, 'given.yaml'), fileFrom: 'MRTQ_CONFIG' });
    expect(findConfig({ ...env, MRTQ_CONFIG: '' }, cwd)).toMatchObject({
      file: join(mrtqHome, 'mrtq.json'),
      home: mrtqHome,
      homeFrom: 'MRTQ_HOME',
    });
    expect(findConfig({ XDG_CONFIG_HOME: xdg }, cwd)).toMatchObject({
      file: join(project, 'mrtq.yml'),
      home: project,
      homeFrom: 'config file',
      searched: [cwd, join(project, 'a'), project],
    });
    const outside = dir('order', 'outside');
    expect(findConfig({ XDG_CONFIG_HOME: xdg }, outside)).toMatchObject({
      file: join(xdg, 'mrtq', 'config.yaml'),
      fileFrom: 'user',
      home: packageRoot(),
      homeFrom: 'package',
    });
    expect(findConfig({ HOME: join(root, 'nobody') }, outside)).toMatchObject({
      file: undefined,
      home: packageRoot(),
    });
  });

  it("puts the data directory under the home, whatever the current directory: MRTQ_HOME's, else the package's", () => {
    const mrtqHome = dir('data', 'home');
    const cwd = dir('data', 'cwd');
    expect(loadConfig({ MRTQ_HOME: mrtqHome }, undefined, cwd).dataDir).toBe(join(mrtqHome, '.data'));
    expect(loadConfig({}, undefined, cwd).dataDir).toBe(join(packageRoot(), '.data'));
    expect(loadConfig({ MRTQ_HOME: mrtqHome, MRTQ_DATA_DIR: '/var/lib/mrtq' }, undefined, cwd).dataDir).toBe(
      '/var/lib/mrtq',
    );
  });
});
