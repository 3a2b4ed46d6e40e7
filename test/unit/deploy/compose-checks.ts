import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { SETTING_NAMES } from '../../../src/config/file.js';
import { loadConfig, type Config } from '../../../src/config/config.js';
import { parseConnectString } from '../../../src/zk/paths.js';
import { tracingSettings } from '../../../otel/tracing.js';
import type { Compose, Service } from './compose-model.js';

/**
 * Checks of docker-compose.yml, each returning the problems it finds (empty when all is well), so a
 * test can show them and feed a broken copy to see that they are found.
 */

export const SERVICE = { zookeeper: 'zookeeper', jaeger: 'jaeger', engine: 'engine' } as const;
/** The official zookeeper image's client port. */
export const ZK_CLIENT_PORT = 2181;
/** Jaeger's OTLP over HTTP receiver, and its UI. */
export const OTLP_HTTP_PORT = 4318;
export const JAEGER_UI_PORT = 16686;

const OTEL_SETTINGS = [
  'OTEL_SERVICE_NAME',
  'OTEL_EXPORTER_OTLP_ENDPOINT',
  'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT',
  'OTEL_EXPORTER_OTLP_PROTOCOL',
  'OTEL_BSP_SCHEDULE_DELAY',
  'OTEL_SDK_DISABLED',
];
/** What the engine reads from its environment: its settings, the OTel SDK's, the logger's and Node's. */
export const ENGINE_ENV_NAMES: readonly string[] = [
  ...SETTING_NAMES,
  ...OTEL_SETTINGS,
  'LOG_PRETTY',
  'NODE_ENV',
  'NODE_OPTIONS',
];

const PINNED_TAG = /^\d+\.\d+\.\d+$/;

function serviceIn(compose: Compose, name: string, problems: string[]): Service | undefined {
  const service = compose.services[name];
  if (!service) problems.push(`no service "${name}"`);
  return service;
}

function imageProblems(service: Service, repository: RegExp, expected: string): string[] {
  const match = repository.exec(service.image ?? '');
  if (!match) return [`${service.name}: image "${service.image ?? ''}" is not ${expected}`];
  const tag = match[1];
  return tag && PINNED_TAG.test(tag)
    ? []
    : [`${service.name}: image "${service.image ?? ''}" is not pinned to a release (x.y.z)`];
}

const publishes = (service: Service, port: number): boolean =>
  service.ports.some((mapping) => mapping.target === port && mapping.published !== undefined);

const listensOn = (service: Service, port: number): boolean =>
  service.ports.some((mapping) => mapping.target === port) || service.expose.includes(port);

const onVolume = (service: Service, dir: string): boolean =>
  service.volumes.some(
    (mount) =>
      mount.type === 'volume' &&
      mount.source !== undefined &&
      (dir === mount.target || dir.startsWith(`${mount.target.replace(/\/$/, '')}/`)),
  );

export function checkServicesExist(compose: Compose): string[] {
  const names = Object.keys(compose.services);
  return Object.values(SERVICE)
    .filter((name) => !names.includes(name))
    .map((name) => `no service "${name}" (services: ${names.join(', ') || 'none'})`);
}

export function checkZooKeeperImage(compose: Compose): string[] {
  const problems: string[] = [];
  const zookeeper = serviceIn(compose, SERVICE.zookeeper, problems);
  if (!zookeeper) return problems;
  return imageProblems(
    zookeeper,
    /^(?:docker\.io\/)?(?:library\/)?zookeeper(?::(.+))?$/,
    'the official zookeeper',
  );
}

export function checkJaeger(compose: Compose): string[] {
  const problems: string[] = [];
  const jaeger = serviceIn(compose, SERVICE.jaeger, problems);
  if (!jaeger) return problems;
  problems.push(
    ...imageProblems(jaeger, /^jaegertracing\/all-in-one(?::(.+))?$/, 'jaegertracing/all-in-one'),
  );
  const otlp = jaeger.environment.COLLECTOR_OTLP_ENABLED;
  if (otlp !== 'true') problems.push(`jaeger: COLLECTOR_OTLP_ENABLED is "${otlp ?? ''}", not "true"`);
  for (const port of [JAEGER_UI_PORT, OTLP_HTTP_PORT]) {
    if (!publishes(jaeger, port)) problems.push(`jaeger: container port ${port} is not published`);
  }
  return problems;
}

/** The engine is built from this repository's Dockerfile, with the repository as the context. */
export function checkEngineBuild(compose: Compose, repoRoot: string): string[] {
  const problems: string[] = [];
  const engine = serviceIn(compose, SERVICE.engine, problems);
  if (!engine) return problems;
  if (!engine.build) return ['engine: has no build section'];
  const dockerfile = resolve(repoRoot, 'Dockerfile');
  if (engine.build.context !== repoRoot)
    problems.push(`engine: build context ${engine.build.context} is not the repository ${repoRoot}`);
  if (engine.build.dockerfile !== dockerfile)
    problems.push(`engine: builds from ${engine.build.dockerfile}, not ${dockerfile}`);
  if (!existsSync(engine.build.dockerfile))
    problems.push(`engine: ${engine.build.dockerfile} does not exist`);
  return problems;
}

/** Build contexts, Dockerfiles, bind-mounted host paths and env files exist. */
export function checkReferencedPaths(compose: Compose): string[] {
  return Object.values(compose.services).flatMap((service) => {
    const paths = [
      ...(service.build ? [service.build.context, service.build.dockerfile] : []),
      ...service.volumes.flatMap((mount) =>
        mount.type === 'bind' && mount.source ? [resolve(compose.dir, mount.source)] : [],
      ),
      ...service.envFiles,
    ];
    return paths.filter((path) => !existsSync(path)).map((path) => `${service.name}: ${path} does not exist`);
  });
}

/** ZK_CONNECT names the zookeeper service's client port; the engine waits until ZooKeeper is healthy. */
export function checkZooKeeperWiring(compose: Compose): string[] {
  const problems: string[] = [];
  const engine = serviceIn(compose, SERVICE.engine, problems);
  const zookeeper = serviceIn(compose, SERVICE.zookeeper, problems);
  if (!engine || !zookeeper) return problems;
  const connect = engine.environment.ZK_CONNECT;
  if (!connect)
    return [...problems, 'engine: ZK_CONNECT is not set (the engine would start its own ZooKeeper)'];
  for (const server of parseConnectString(connect).servers.split(',')) {
    const [host, port] = server.split(':');
    if (host !== SERVICE.zookeeper || Number(port) !== ZK_CLIENT_PORT)
      problems.push(`engine: ZK_CONNECT server "${server}" is not ${SERVICE.zookeeper}:${ZK_CLIENT_PORT}`);
  }
  if (engine.dependsOn[SERVICE.zookeeper] !== 'service_healthy')
    problems.push('engine: does not depend on zookeeper with condition service_healthy');
  const test = JSON.stringify((zookeeper.healthcheck as { test?: unknown } | undefined)?.test ?? '');
  if (test === '""') problems.push('zookeeper: has no healthcheck (service_healthy would never hold)');
  const whitelist = (zookeeper.environment.ZOO_4LW_COMMANDS_WHITELIST ?? '').split(',').map((s) => s.trim());
  for (const word of test.match(/\b(?:ruok|srvr|mntr|stat|conf|cons|envi)\b/g) ?? []) {
    if (!whitelist.includes(word) && !whitelist.includes('*'))
      problems.push(
        `zookeeper: the healthcheck sends "${word}", which ZOO_4LW_COMMANDS_WHITELIST does not allow`,
      );
  }
  return problems;
}

/** The engine exports OTLP over HTTP to the jaeger service, which receives it. */
export function checkTracingWiring(compose: Compose): string[] {
  const problems: string[] = [];
  const engine = serviceIn(compose, SERVICE.engine, problems);
  const jaeger = serviceIn(compose, SERVICE.jaeger, problems);
  if (!engine || !jaeger) return problems;
  const env = engine.environment;
  if (!env.OTEL_SERVICE_NAME) problems.push('engine: OTEL_SERVICE_NAME is not set');
  if (env.OTEL_SDK_DISABLED?.toLowerCase() === 'true')
    problems.push('engine: OTEL_SDK_DISABLED turns tracing off');
  const endpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT;
  if (!endpoint) return [...problems, 'engine: OTEL_EXPORTER_OTLP_ENDPOINT is not set'];
  const url = URL.canParse(endpoint) ? new URL(endpoint) : undefined;
  const port = Number(url?.port || (url?.protocol === 'https:' ? 443 : 80));
  if (url?.hostname !== SERVICE.jaeger)
    problems.push(`engine: OTLP endpoint ${endpoint} is not the jaeger service`);
  if (port !== OTLP_HTTP_PORT)
    problems.push(`engine: OTLP endpoint ${endpoint} is not port ${OTLP_HTTP_PORT}`);
  if (!listensOn(jaeger, OTLP_HTTP_PORT)) problems.push(`jaeger: does not list port ${OTLP_HTTP_PORT}`);
  const protocol = env.OTEL_EXPORTER_OTLP_PROTOCOL;
  if (protocol !== undefined && !protocol.startsWith('http/'))
    problems.push(`engine: OTEL_EXPORTER_OTLP_PROTOCOL "${protocol}" does not match the OTLP HTTP port`);
  if (!(SERVICE.jaeger in engine.dependsOn)) problems.push('engine: does not depend on jaeger');
  return problems;
}

/** Every variable `where` sets is one the engine reads (a typo would be silently ignored). */
export function checkEnvironmentNames(env: Record<string, string>, where: string): string[] {
  return Object.keys(env)
    .filter((name) => !ENGINE_ENV_NAMES.includes(name))
    .map((name) => `${where}: ${name} is not a setting the engine reads`);
}

/** The engine's own validation of its environment at start: the OTel bootstrap's, then the settings'. */
export function engineConfig(env: Record<string, string>): { config?: Config; problems: string[] } {
  try {
    tracingSettings(env);
    return { config: loadConfig(env), problems: [] };
  } catch (err) {
    return { problems: [`the engine refuses its environment: ${(err as Error).message}`] };
  }
}

/** The API listens beyond loopback, on the container port compose publishes. */
export function checkEngineListening(compose: Compose): string[] {
  const problems: string[] = [];
  const engine = serviceIn(compose, SERVICE.engine, problems);
  if (!engine) return problems;
  const { config, problems: invalid } = engineConfig(engine.environment);
  if (!config) return invalid;
  if (config.httpHost !== '0.0.0.0' && config.httpHost !== '::')
    problems.push(`engine: MRTQ_HTTP_HOST is ${config.httpHost}: unreachable from outside the container`);
  if (!publishes(engine, config.httpPort))
    problems.push(`engine: the API port ${config.httpPort} (MRTQ_HTTP_PORT) is not published`);
  return problems;
}

/** Named volumes are declared; ZooKeeper's data and the engine's data directory survive a restart. */
export function checkVolumes(compose: Compose): string[] {
  const problems = Object.values(compose.services).flatMap((service) =>
    service.volumes
      .filter((mount) => mount.type === 'volume' && mount.source && !compose.volumes.includes(mount.source))
      .map(
        (mount) => `${service.name}: volume "${mount.source}" is not declared under the top-level volumes`,
      ),
  );
  const zookeeper = serviceIn(compose, SERVICE.zookeeper, problems);
  const engine = serviceIn(compose, SERVICE.engine, problems);
  if (zookeeper) {
    const env = zookeeper.environment;
    for (const dir of [env.ZOO_DATA_DIR ?? '/data', env.ZOO_DATA_LOG_DIR ?? '/datalog']) {
      if (!onVolume(zookeeper, dir)) problems.push(`zookeeper: ${dir} is not on a named volume`);
    }
  }
  const dataDir = engine && engineConfig(engine.environment).config?.dataDir;
  if (engine && dataDir && !onVolume(engine, dataDir))
    problems.push(`engine: the data directory ${dataDir} (MRTQ_DATA_DIR) is not on a named volume`);
  return problems;
}
