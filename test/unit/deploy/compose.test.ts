import { describe, expect, it } from 'vitest';
import {
  checkEngineBuild,
  checkEngineListening,
  checkEnvironmentNames,
  checkJaeger,
  checkReferencedPaths,
  checkServicesExist,
  checkTracingWiring,
  checkVolumes,
  checkZooKeeperImage,
  checkZooKeeperWiring,
  engineConfig,
  SERVICE,
} from './compose-checks.js';
import { interpolate, parseCompose } from './compose-model.js';
import { brokenCompose, compose, COMPOSE_PATH, composeText, OPERATOR_ENV, REPO } from './deploy-files.js';

// Static checks only: the build machines have no Docker engine, so the stack is never started here.
const engineEnv = () => compose.services[SERVICE.engine]?.environment ?? {};

describe('docker-compose.yml', () => {
  it('has the zookeeper, jaeger and engine services', () => {
    expect(checkServicesExist(compose)).toEqual([]);
  });

  it('runs ZooKeeper from the official image, pinned to a release', () => {
    expect(checkZooKeeperImage(compose)).toEqual([]);
  });

  it('runs Jaeger all-in-one pinned, with OTLP on and the UI and OTLP/HTTP ports published', () => {
    expect(checkJaeger(compose)).toEqual([]);
  });

  it("builds the engine from this repository's Dockerfile", () => {
    expect(checkEngineBuild(compose, REPO)).toEqual([]);
  });

  it('refers only to paths that exist', () => {
    expect(checkReferencedPaths(compose)).toEqual([]);
  });

  it('points ZK_CONNECT at the zookeeper service and starts the engine once ZooKeeper is healthy', () => {
    expect(checkZooKeeperWiring(compose)).toEqual([]);
  });

  it('exports the engine traces over OTLP/HTTP to the jaeger service', () => {
    expect(checkTracingWiring(compose)).toEqual([]);
  });

  it('sets only environment variables the engine reads', () => {
    expect(checkEnvironmentNames(engineEnv(), 'engine')).toEqual([]);
  });

  it('gives the engine an environment its own configuration validation accepts', () => {
    expect(engineConfig(engineEnv()).problems).toEqual([]);
  });

  it('publishes the API port the engine listens on, on every interface of the container', () => {
    expect(checkEngineListening(compose)).toEqual([]);
  });

  it("keeps ZooKeeper's data and the engine's data directory on declared named volumes", () => {
    expect(checkVolumes(compose)).toEqual([]);
  });

  it('requires the operator to choose the API token: there is no default everyone knows', () => {
    expect(engineEnv().MRTQ_API_TOKEN).toBe(OPERATOR_ENV.MRTQ_API_TOKEN);
    expect(() => parseCompose(composeText, COMPOSE_PATH)).toThrow(
      'required variable MRTQ_API_TOKEN is missing',
    );
  });
});

describe('the compose checks find what is broken', () => {
  it('a renamed service', () => {
    const broken = brokenCompose('  zookeeper:\n    image', '  zk:\n    image');
    expect(checkServicesExist(broken)).toEqual(['no service "zookeeper" (services: zk, jaeger, engine)']);
  });

  it('an image that is not pinned to a release', () => {
    const broken = brokenCompose('image: zookeeper:3.8.4', 'image: zookeeper:3.8');
    expect(checkZooKeeperImage(broken)).toEqual([
      'zookeeper: image "zookeeper:3.8" is not pinned to a release (x.y.z)',
    ]);
  });

  it('an OTLP endpoint on another host', () => {
    const broken = brokenCompose('http://jaeger:4318', 'http://collector:4318');
    expect(checkTracingWiring(broken)).toEqual([
      'engine: OTLP endpoint http://collector:4318 is not the jaeger service',
    ]);
  });

  it('the OTLP gRPC port where the exporter speaks HTTP', () => {
    const broken = brokenCompose('http://jaeger:4318', 'http://jaeger:4317');
    expect(checkTracingWiring(broken)).toEqual(['engine: OTLP endpoint http://jaeger:4317 is not port 4318']);
  });

  it('a ZK_CONNECT that names another host, and no wait for a healthy ZooKeeper', () => {
    const broken = brokenCompose('ZK_CONNECT: zookeeper:2181', 'ZK_CONNECT: localhost:2181');
    expect(checkZooKeeperWiring(broken)).toEqual([
      'engine: ZK_CONNECT server "localhost:2181" is not zookeeper:2181',
    ]);
    const unhealthy = brokenCompose('condition: service_healthy', 'condition: service_started');
    expect(checkZooKeeperWiring(unhealthy)).toEqual([
      'engine: does not depend on zookeeper with condition service_healthy',
    ]);
  });

  it('a healthcheck command ZooKeeper does not allow', () => {
    const broken = brokenCompose(
      'ZOO_4LW_COMMANDS_WHITELIST: ruok,srvr,mntr',
      'ZOO_4LW_COMMANDS_WHITELIST: srvr',
    );
    expect(checkZooKeeperWiring(broken)).toEqual([
      'zookeeper: the healthcheck sends "ruok", which ZOO_4LW_COMMANDS_WHITELIST does not allow',
    ]);
  });

  it('a misspelt setting, and values the engine refuses', () => {
    const misspelt = brokenCompose("MRTQ_HTTP_PORT: '8470'", "MRTQ_HTTP_PROT: '8470'");
    expect(checkEnvironmentNames(misspelt.services.engine?.environment ?? {}, 'engine')).toEqual([
      'engine: MRTQ_HTTP_PROT is not a setting the engine reads',
    ]);
    const invalid = brokenCompose("MRTQ_HTTP_PORT: '8470'", "MRTQ_HTTP_PORT: 'eighty'");
    expect(engineConfig(invalid.services.engine?.environment ?? {}).problems).toEqual([
      'the engine refuses its environment: MRTQ_HTTP_PORT must be a port (0-65535), got "eighty"',
    ]);
    const grpc = brokenCompose(
      'OTEL_EXPORTER_OTLP_PROTOCOL: http/protobuf',
      'OTEL_EXPORTER_OTLP_PROTOCOL: grpc',
    );
    expect(engineConfig(grpc.services.engine?.environment ?? {}).problems).toEqual([
      'the engine refuses its environment: OTEL_EXPORTER_OTLP_PROTOCOL must be one of http/protobuf, http/json, got "grpc"',
    ]);
  });

  it('an API on loopback, and a published port the engine does not listen on', () => {
    const loopback = brokenCompose('MRTQ_HTTP_HOST: 0.0.0.0', 'MRTQ_HTTP_HOST: 127.0.0.1');
    expect(checkEngineListening(loopback)).toEqual([
      'engine: MRTQ_HTTP_HOST is 127.0.0.1: unreachable from outside the container',
    ]);
    const elsewhere = brokenCompose("- '127.0.0.1:8470:8470'", "- '127.0.0.1:8470:8080'");
    expect(checkEngineListening(elsewhere)).toEqual([
      'engine: the API port 8470 (MRTQ_HTTP_PORT) is not published',
    ]);
  });

  it('a Dockerfile that does not exist', () => {
    const broken = brokenCompose('dockerfile: Dockerfile', 'dockerfile: Dockerfile.missing');
    const missing = `${REPO}/Dockerfile.missing`;
    expect(checkReferencedPaths(broken)).toEqual([`engine: ${missing} does not exist`]);
    expect(checkEngineBuild(broken, REPO)).toEqual([
      `engine: builds from ${missing}, not ${REPO}/Dockerfile`,
      `engine: ${missing} does not exist`,
    ]);
  });

  it('an undeclared volume, and a data directory off the volumes', () => {
    const undeclared = brokenCompose('  engine-data:\n', '');
    expect(checkVolumes(undeclared)).toEqual([
      'engine: volume "engine-data" is not declared under the top-level volumes',
    ]);
    const elsewhere = brokenCompose('MRTQ_DATA_DIR: /var/lib/mrtq', 'MRTQ_DATA_DIR: /srv/mrtq');
    expect(checkVolumes(elsewhere)).toEqual([
      'engine: the data directory /srv/mrtq (MRTQ_DATA_DIR) is not on a named volume',
    ]);
  });
});

describe('compose variable substitution', () => {
  it('takes the default of ${VAR:-default} when the variable is unset or empty', () => {
    expect(interpolate('${T:-change-me}')).toBe('change-me');
    expect(interpolate('${T:-change-me}', { T: '' })).toBe('change-me');
    expect(interpolate('${T-change-me}', { T: '' })).toBe('');
    expect(interpolate('${T:-change-me}', { T: 's3cret' })).toBe('s3cret');
  });

  it('reads $$ as a dollar and refuses a missing ${VAR:?message}', () => {
    expect(interpolate('$$HOME and $T', { T: 'x' })).toBe('$HOME and x');
    expect(() => interpolate('${T:?set T}')).toThrow('required variable T is missing: set T');
  });
});
