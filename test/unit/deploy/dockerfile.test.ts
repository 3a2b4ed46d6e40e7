import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  containerArgv,
  envOf,
  finalStage,
  healthcheckOf,
  parseDockerfile,
} from '../../support/dockerfile.js';
import { checkEnvironmentNames, engineConfig, SERVICE } from './compose-checks.js';
import {
  brokenDockerfile,
  compose,
  context,
  dockerfileLine,
  dockerfileText,
  edit,
  REPO,
} from './deploy-files.js';
import {
  checkBaseImage,
  checkCopySources,
  checkEntrypoint,
  checkExpose,
  checkHealthcheck,
  checkInstall,
  checkProductionImports,
  checkRuntimeFiles,
  checkUser,
  imageEnv,
} from './dockerfile-checks.js';
import { isIgnored, parseDockerignore } from './dockerignore.js';
import { SERVE_NODE_FLAGS } from '../../../src/serve-flags.js';

// Static checks only: the build machines have no Docker engine, so the image is never built here.
const instructions = parseDockerfile(dockerfileText);
const stage = finalStage(instructions);
const engine = compose.services[SERVICE.engine];
const packageJson = JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
  scripts: Record<string, string>;
};
const enginesNode = packageJson.engines.node;
const dependencies = Object.keys(packageJson.dependencies);
/** testcontainers is only loaded to probe for a container runtime, which MRTQ_CONTAINERS=off skips. */
const devOnlyPaths = { testcontainers: 'src/zk-server/container.ts' };
/** What the container's environment is: the image's ENV, overridden by compose's. */
const containerEnv = { ...imageEnv(stage), ...engine?.environment };
const config = engineConfig(containerEnv).config;
const apiPort = config?.httpPort ?? 8470;
const dataDir = config?.dataDir ?? '/var/lib/mrtq';
const npmInputs = [
  'package.json',
  'package-lock.json',
  ...readdirSync(join(REPO, 'patches')).map((f) => `patches/${f}`),
];
/** The profiles directory the service reads at start, when it is part of the repository. */
const profilesDir = config && relative(REPO, config.ingest.profilesDir);
const runtimeFiles = [
  'package.json',
  'bin/mrtq.js',
  'src/cli/main.ts',
  'machines/index.ts',
  'otel',
  ...(profilesDir && !profilesDir.startsWith('..') ? [profilesDir] : []),
];

describe('Dockerfile', () => {
  it(`is based on a Node image of the major version engines.node asks for (${enginesNode})`, () => {
    expect(checkBaseImage(stage, enginesNode)).toEqual([]);
  });

  it('copies only paths that exist in the repository and that .dockerignore keeps', () => {
    expect(checkCopySources(instructions, context)).toEqual([]);
  });

  it('copies package.json, the lock file and the patches before npm ci (its postinstall applies them)', () => {
    expect(checkInstall(stage, context, npmInputs)).toEqual([]);
  });

  it(`puts what the service needs at run time at its repository path under WORKDIR: ${runtimeFiles.join(', ')}`, () => {
    expect(runtimeFiles).toContain('profiles');
    expect(checkRuntimeFiles(stage, context, runtimeFiles)).toEqual([]);
  });

  it('imports at run time only packages npm ci --omit=dev installs', () => {
    expect(containerEnv.MRTQ_CONTAINERS).toBe('off');
    expect(
      checkProductionImports(REPO, ['bin', 'src', 'machines', 'otel'], dependencies, devOnlyPaths),
    ).toEqual([]);
  });

  it('runs node bin/mrtq.js serve, also as the compose service', () => {
    expect(checkEntrypoint(stage)).toEqual([]);
    const override = [...(engine?.entrypoint ?? []), ...(engine?.command ?? [])];
    if (override.length > 0) expect(checkEntrypoint(stage, override)).toEqual([]);
  });

  it('runs the engine with the heap budget npm start and the tests use (SERVE_NODE_FLAGS)', () => {
    expect(containerEnv.NODE_OPTIONS?.split(/\s+/)).toEqual([...SERVE_NODE_FLAGS]);
    const start = (packageJson.scripts.start ?? '').split(/\s+/);
    expect(start.slice(0, 1 + SERVE_NODE_FLAGS.length)).toEqual(['node', ...SERVE_NODE_FLAGS]);
    expect(start.slice(1 + SERVE_NODE_FLAGS.length)).toEqual(['bin/mrtq.js', 'serve']);
  });

  it('exposes the port the API listens on and compose publishes', () => {
    expect(checkExpose(stage, apiPort)).toEqual([]);
  });

  it('runs as an unprivileged user that owns the data directory', () => {
    expect(checkUser(stage, dataDir)).toEqual([]);
  });

  it("checks the container's health on the API's /healthz", () => {
    expect(checkHealthcheck(stage, apiPort)).toEqual([]);
  });

  it('sets only variables the engine reads, and with compose gives an environment the engine accepts', () => {
    expect(checkEnvironmentNames(imageEnv(stage), 'Dockerfile')).toEqual([]);
    expect(engineConfig(containerEnv).problems).toEqual([]);
  });

  it('keeps local state and installed modules out of the build context', () => {
    for (const path of [
      'node_modules',
      'node_modules/yaml/package.json',
      '.data',
      'reports',
      '.git',
      'bench/results',
    ]) {
      expect(isIgnored(context.ignore, path), path).toBe(true);
    }
  });
});

describe('the Dockerfile checks find what is broken', () => {
  it('a COPY of a path that is not in the repository', () => {
    const broken = brokenDockerfile('COPY otel ./otel', 'COPY telemetry ./otel');
    expect(checkCopySources(broken, context)).toEqual([
      `line ${dockerfileLine('COPY otel')}: COPY telemetry: not in the repository`,
    ]);
    expect(checkRuntimeFiles(finalStage(broken), context, runtimeFiles)).toEqual([
      'otel: not copied to /app/otel',
    ]);
  });

  it('a COPY of a path .dockerignore leaves out', () => {
    const ignoring = { ...context, ignore: parseDockerignore('**/node_modules\nsrc\n') };
    expect(checkCopySources(instructions, ignoring)).toEqual([
      `line ${dockerfileLine('COPY src')}: COPY src: excluded by .dockerignore`,
    ]);
  });

  it('the patches copied after npm ci', () => {
    const moved = edit(dockerfileText, 'COPY patches ./patches', '# patches moved below');
    const broken = parseDockerfile(edit(moved, 'COPY src ./src', 'COPY src ./src\nCOPY patches ./patches'));
    expect(checkInstall(broken, context, npmInputs)).toEqual(
      npmInputs
        .filter((p) => p.startsWith('patches/'))
        .map((p) => `${p} is not copied before npm ci (line ${dockerfileLine('RUN npm ci')})`),
    );
  });

  it('a development dependency the service imports', () => {
    const withoutPino = dependencies.filter((name) => name !== 'pino');
    expect(checkProductionImports(REPO, ['src'], withoutPino, devOnlyPaths)).toContain(
      'src/logger.ts imports pino, which npm ci --omit=dev does not install',
    );
    expect(checkProductionImports(REPO, ['src'], dependencies, {})).toContain(
      'src/zk-server/container.ts imports testcontainers, which npm ci --omit=dev does not install',
    );
  });

  it('sources copied to the wrong place', () => {
    const broken = brokenDockerfile('COPY src ./src', 'COPY src ./');
    expect(checkRuntimeFiles(finalStage(broken), context, runtimeFiles)).toEqual([
      'src/cli/main.ts: not copied to /app/src/cli/main.ts',
    ]);
  });

  it('another base image, root, another command, port or health URL', () => {
    expect(checkBaseImage(finalStage(brokenDockerfile('FROM node:20-', 'FROM node:18-')), '>=20.19')).toEqual(
      ['FROM node:18-bookworm-slim: Node 18, but engines.node is >=20.19'],
    );
    expect(checkUser(finalStage(brokenDockerfile('USER node\n', '')), dataDir)).toEqual([
      'the container runs as root (no USER)',
    ]);
    expect(checkEntrypoint(finalStage(brokenDockerfile('CMD ["serve"]', 'CMD ["watch"]')))).toEqual([
      'the container runs ["node","bin/mrtq.js","watch"], not node bin/mrtq.js serve in /app',
    ]);
    expect(checkExpose(stage, 8080)).toEqual(['EXPOSE 8470 does not include 8080']);
    expect(checkHealthcheck(finalStage(brokenDockerfile("'/healthz'", "'/'")), apiPort)[0]).toMatch(
      /^HEALTHCHECK does not ask \/healthz/,
    );
  });
});

describe('reading a Dockerfile', () => {
  const parsed = parseDockerfile(
    [
      '# escape=\\',
      'FROM node:20 AS base',
      'RUN apt-get update \\',
      '  # a comment inside the continuation',
      '  && apt-get install -y tini',
      '',
      'COPY --chown=node:node ["a b", "c", "/dest/"]',
      'ENV A=1 B="two words" C=\'x\'',
      'ENV LEGACY some value',
      'HEALTHCHECK --interval=5s CMD curl -f http://localhost/',
      'ENTRYPOINT ["node", "main.js"]',
      'CMD ["serve"]',
    ].join('\n'),
  );

  it('joins continued lines, dropping comments inside them, and keeps the starting line', () => {
    expect(parsed.map((i) => [i.line, i.keyword])).toEqual([
      [2, 'FROM'],
      [3, 'RUN'],
      [7, 'COPY'],
      [8, 'ENV'],
      [9, 'ENV'],
      [10, 'HEALTHCHECK'],
      [11, 'ENTRYPOINT'],
      [12, 'CMD'],
    ]);
    expect(parsed[1]?.args).toBe('apt-get update   && apt-get install -y tini');
  });

  it('reads flags and the exec form', () => {
    expect(parsed[2]).toMatchObject({ flags: { chown: 'node:node' }, exec: ['a b', 'c', '/dest/'] });
    expect(parsed[1]?.exec).toBeUndefined();
  });

  it('reads ENV pairs with quotes and the legacy form', () => {
    expect(parsed[3] && envOf(parsed[3])).toEqual({ A: '1', B: 'two words', C: 'x' });
    expect(parsed[4] && envOf(parsed[4])).toEqual({ LEGACY: 'some value' });
  });

  it('reads a HEALTHCHECK, and combines ENTRYPOINT and CMD as Docker does', () => {
    expect(parsed[5] && healthcheckOf(parsed[5])).toEqual({
      flags: { interval: '5s' },
      command: { form: 'shell', script: 'curl -f http://localhost/' },
    });
    expect(containerArgv(parsed)).toEqual(['node', 'main.js', 'serve']);
    expect(containerArgv(parseDockerfile('FROM x\nENTRYPOINT exec node a.js\nCMD ["b"]'))).toEqual([
      '/bin/sh',
      '-c',
      'exec node a.js',
    ]);
  });

  it('honours the escape directive and refuses heredocs', () => {
    expect(parseDockerfile('# escape=`\nFROM x\nRUN a `\n  b')[1]?.args).toBe('a   b');
    expect(() => parseDockerfile('FROM x\nRUN <<EOF\necho\nEOF')).toThrow(/heredocs/);
  });
});

describe('reading .dockerignore', () => {
  const ignore = parseDockerignore('# comment\n/build\n**/*.log\nsecrets/*\n!secrets/public.txt\n');

  it('leaves out what a pattern or a parent directory matches, unless a later ! takes it back', () => {
    expect(isIgnored(ignore, 'build/out/app.js')).toBe(true);
    expect(isIgnored(ignore, 'a/b/debug.log')).toBe(true);
    expect(isIgnored(ignore, 'secrets/key.pem')).toBe(true);
    expect(isIgnored(ignore, 'secrets/public.txt')).toBe(false);
    expect(isIgnored(ignore, 'src/build/x.ts')).toBe(false);
  });
});
