import { dirname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';

/**
 * docker-compose.yml read as Compose does, for static checks: values interpolated (`${VAR:-default}`
 * against a given environment, by default an empty one), and the short and long syntaxes of
 * environment, ports, volumes, depends_on and build brought to one shape each.
 */

export interface PortMapping {
  hostIp: string | undefined;
  published: number | undefined;
  target: number;
}

export interface Mount {
  type: 'volume' | 'bind' | 'tmpfs';
  /** Volume name or host path; undefined for an anonymous volume. */
  source: string | undefined;
  target: string;
}

export interface Service {
  name: string;
  image: string | undefined;
  /** Absolute paths of the build context and Dockerfile, when the service is built. */
  build: { context: string; dockerfile: string } | undefined;
  environment: Record<string, string>;
  ports: PortMapping[];
  /** Container ports given under `expose`. */
  expose: number[];
  volumes: Mount[];
  /** Service name → condition (`service_started` for the list syntax). */
  dependsOn: Record<string, string>;
  healthcheck: unknown;
  envFiles: string[];
  /** `entrypoint` and `command` when the service overrides the image's. */
  entrypoint: string[] | undefined;
  command: string[] | undefined;
}

export interface Compose {
  /** Directory of the compose file: relative paths in it are resolved from here. */
  dir: string;
  services: Record<string, Service>;
  /** Names declared under the top-level `volumes`. */
  volumes: string[];
}

type Env = Record<string, string | undefined>;
type Mapping = Record<string, unknown>;

const VARIABLE = /\$\$|\$\{([A-Za-z_]\w*)(?:(:?[-?+])([^}]*))?\}|\$([A-Za-z_]\w*)/g;

/** Compose's variable substitution of one value. */
export function interpolate(text: string, env: Env = {}): string {
  return text.replace(VARIABLE, (whole, braced?: string, op?: string, word?: string, bare?: string) => {
    if (whole === '$$') return '$';
    const name = braced ?? bare ?? '';
    const value = env[name];
    const set = op?.startsWith(':') ? value !== undefined && value !== '' : value !== undefined;
    switch (op?.replace(':', '')) {
      case '-':
        return set ? (value ?? '') : (word ?? '');
      case '?':
        if (!set) throw new Error(`required variable ${name} is missing: ${word ?? ''}`);
        return value ?? '';
      case '+':
        return set ? (word ?? '') : '';
      default:
        return value ?? '';
    }
  });
}

function interpolateAll(value: unknown, env: Env): unknown {
  if (typeof value === 'string') return interpolate(value, env);
  if (Array.isArray(value)) return value.map((item) => interpolateAll(item, env));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, interpolateAll(item, env)]));
  }
  return value;
}

const isMapping = (value: unknown): value is Mapping =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

const scalar = (value: unknown): string =>
  value === null || value === undefined ? '' : typeof value === 'string' ? value : JSON.stringify(value);

function environmentOf(value: unknown): Record<string, string> {
  if (isMapping(value)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, scalar(item)]));
  }
  return Object.fromEntries(
    asList(value).map((entry) => {
      const [key = '', ...rest] = scalar(entry).split('=');
      return [key, rest.join('=')];
    }),
  );
}

function portOf(value: unknown): PortMapping {
  if (isMapping(value)) {
    const published = value.published === undefined ? undefined : Number(value.published);
    return { hostIp: value.host_ip as string | undefined, published, target: Number(value.target) };
  }
  const parts = scalar(value)
    .replace(/\/\w+$/, '')
    .split(':');
  const target = Number(parts.pop());
  const published = parts.length > 0 ? Number(parts.pop()) : undefined;
  return { hostIp: parts.length > 0 ? parts.join(':') : undefined, published, target };
}

function mountOf(value: unknown): Mount {
  if (isMapping(value)) {
    const type = (value.type as Mount['type'] | undefined) ?? 'volume';
    return { type, source: value.source as string | undefined, target: scalar(value.target) };
  }
  const parts = scalar(value).split(':');
  if (parts.length === 1) return { type: 'volume', source: undefined, target: parts[0] ?? '' };
  const source = parts[0] ?? '';
  const type = /^[./~]/.test(source) ? 'bind' : 'volume';
  return { type, source, target: parts[1] ?? '' };
}

function dependsOnOf(value: unknown): Record<string, string> {
  if (isMapping(value)) {
    return Object.fromEntries(
      Object.entries(value).map(([name, spec]) => [
        name,
        isMapping(spec) && typeof spec.condition === 'string' ? spec.condition : 'service_started',
      ]),
    );
  }
  return Object.fromEntries(asList(value).map((name) => [scalar(name), 'service_started']));
}

function buildOf(value: unknown, dir: string): Service['build'] {
  if (value === undefined) return undefined;
  const spec = isMapping(value) ? value : { context: value };
  const context = resolve(dir, scalar(spec.context ?? '.'));
  return { context, dockerfile: resolve(context, scalar(spec.dockerfile ?? 'Dockerfile')) };
}

const commandOf = (value: unknown): string[] | undefined =>
  value === undefined ? undefined : Array.isArray(value) ? value.map(scalar) : scalar(value).split(/\s+/);

function serviceOf(name: string, spec: Mapping, dir: string): Service {
  return {
    name,
    image: typeof spec.image === 'string' ? spec.image : undefined,
    build: buildOf(spec.build, dir),
    environment: environmentOf(spec.environment),
    ports: asList(spec.ports).map(portOf),
    expose: asList(spec.expose).map((port) => Number(scalar(port).replace(/\/\w+$/, ''))),
    volumes: asList(spec.volumes).map(mountOf),
    dependsOn: dependsOnOf(spec.depends_on),
    healthcheck: spec.healthcheck,
    envFiles: (Array.isArray(spec.env_file) ? spec.env_file : spec.env_file ? [spec.env_file] : []).map(
      (file) => resolve(dir, isMapping(file) ? scalar(file.path) : scalar(file)),
    ),
    entrypoint: commandOf(spec.entrypoint),
    command: commandOf(spec.command),
  };
}

/** Reads compose YAML as if it were the file at `composePath`, interpolated against `env`. */
export function parseCompose(text: string, composePath: string, env: Env = {}): Compose {
  const document = interpolateAll(parseYaml(text), env);
  if (!isMapping(document)) throw new Error(`${composePath}: not a mapping`);
  const dir = dirname(composePath);
  const services = isMapping(document.services) ? document.services : {};
  return {
    dir,
    services: Object.fromEntries(
      Object.entries(services).map(([name, spec]) => [
        name,
        serviceOf(name, isMapping(spec) ? spec : {}, dir),
      ]),
    ),
    volumes: isMapping(document.volumes) ? Object.keys(document.volumes) : [],
  };
}
