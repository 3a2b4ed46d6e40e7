import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix, relative, resolve } from 'node:path';
import { containerArgv, copyOf, envOf, healthcheckOf, type Instruction } from '../../support/dockerfile.js';
import { isIgnored, parseDockerignore } from './dockerignore.js';

/**
 * Checks of the Dockerfile, each returning the problems it finds (empty when all is well). They take
 * the final build stage (or all instructions, for the build context) and the context they need.
 */

/** The directory `docker build` sends, and what its .dockerignore leaves out. */
export interface BuildContext {
  root: string;
  ignore: ReturnType<typeof parseDockerignore>;
}

const clean = (path: string): string => posix.normalize(path).replace(/^\.\/|\/+$/g, '') || '.';

const isCopy = (instruction: Instruction): boolean =>
  (instruction.keyword === 'COPY' || instruction.keyword === 'ADD') && instruction.flags.from === undefined;

/** The base image's tag, e.g. `node:20-bookworm-slim` → major 20, against `engines.node` (`>=20.19`). */
export function checkBaseImage(stage: Instruction[], enginesNode: string): string[] {
  const from = stage[0];
  const image = from?.args.split(/\s+/)[0] ?? '';
  const tag = /^(?:docker\.io\/)?(?:library\/)?node:(\d+)(?:\.(\d+))?/.exec(image);
  const wanted = /(\d+)(?:\.(\d+))?/.exec(enginesNode);
  if (!tag || !wanted)
    return [`FROM ${image}: not a node image with a version tag (engines.node ${enginesNode})`];
  const problems: string[] = [];
  if (tag[1] !== wanted[1])
    problems.push(`FROM ${image}: Node ${tag[1]}, but engines.node is ${enginesNode}`);
  if (tag[2] !== undefined && Number(tag[2]) < Number(wanted[2] ?? 0))
    problems.push(`FROM ${image}: older than engines.node ${enginesNode}`);
  return problems;
}

/** Every COPY/ADD source is in the build context: present in the repository and not ignored. */
export function checkCopySources(instructions: Instruction[], context: BuildContext): string[] {
  return instructions.filter(isCopy).flatMap((instruction) =>
    copyOf(instruction)
      .sources.filter((source) => !/^https?:\/\//.test(source))
      .flatMap((source) => {
        const path = clean(source);
        if (!existsSync(resolve(context.root, path)))
          return [`line ${instruction.line}: ${instruction.keyword} ${source}: not in the repository`];
        if (path !== '.' && isIgnored(context.ignore, path))
          return [`line ${instruction.line}: ${instruction.keyword} ${source}: excluded by .dockerignore`];
        return [];
      }),
  );
}

/** Where a COPY puts the context file `path`, or undefined when it does not copy it. */
function copiedTo(instruction: Instruction, workdir: string, path: string, root: string): string | undefined {
  const { sources, dest } = copyOf(instruction);
  const target = posix.resolve(workdir, dest);
  for (const source of sources.map(clean)) {
    const isDir = existsSync(resolve(root, source)) && statSync(resolve(root, source)).isDirectory();
    if (source === '.') return posix.join(target, path);
    if (path.startsWith(`${source}/`)) return posix.join(target, path.slice(source.length + 1));
    if (path !== source) continue;
    if (isDir) return target;
    return dest.endsWith('/') || sources.length > 1 ? posix.join(target, posix.basename(source)) : target;
  }
  return undefined;
}

/** The working directory of the container, and of each instruction. */
function workdirs(stage: Instruction[]): string[] {
  let workdir = '/';
  return stage.map((instruction) => {
    if (instruction.keyword === 'WORKDIR') workdir = posix.resolve(workdir, instruction.args.trim());
    return workdir;
  });
}

/**
 * The files the service needs at run time land in the image at `<WORKDIR>/<same path>`, so
 * relative imports (bin/mrtq.js → ../src/cli/main.ts) and the default profiles directory resolve.
 */
export function checkRuntimeFiles(stage: Instruction[], context: BuildContext, needed: string[]): string[] {
  const dirs = workdirs(stage);
  const appDir = dirs.at(-1) ?? '/';
  return needed.flatMap((path) => {
    if (!existsSync(resolve(context.root, path))) return [`${path}: not in the repository`];
    if (isIgnored(context.ignore, path)) return [`${path}: excluded by .dockerignore`];
    const expected = posix.join(appDir, path);
    const landed = stage.some(
      (instruction, i) =>
        isCopy(instruction) && copiedTo(instruction, dirs[i] ?? '/', path, context.root) === expected,
    );
    return landed ? [] : [`${path}: not copied to ${expected}`];
  });
}

/** npm ci has what it reads copied before it runs: package.json, the lock file, the patches. */
export function checkInstall(stage: Instruction[], context: BuildContext, inputs: string[]): string[] {
  const install = stage.findIndex(
    (instruction) => instruction.keyword === 'RUN' && /\bnpm\s+ci\b/.test(instruction.args),
  );
  if (install === -1) return ['no RUN npm ci (the lock file would not be followed)'];
  const dirs = workdirs(stage);
  const before = stage.slice(0, install);
  return inputs
    .filter(
      (path) =>
        !before.some(
          (instruction, i) =>
            isCopy(instruction) && copiedTo(instruction, dirs[i] ?? '/', path, context.root) !== undefined,
        ),
    )
    .map((path) => `${path} is not copied before npm ci (line ${stage[install]?.line})`);
}

/** The container runs `node bin/mrtq.js serve` from the application directory. */
export function checkEntrypoint(stage: Instruction[], argv = containerArgv(stage)): string[] {
  const appDir = workdirs(stage).at(-1) ?? '/';
  const script = argv.findIndex((arg) => posix.resolve(appDir, arg) === posix.join(appDir, 'bin/mrtq.js'));
  if (!/(^|\/)node$/.test(argv[0] ?? '') || script === -1 || argv[script + 1] !== 'serve')
    return [`the container runs ${JSON.stringify(argv)}, not node bin/mrtq.js serve in ${appDir}`];
  return [];
}

export function checkExpose(stage: Instruction[], port: number): string[] {
  const exposed = stage
    .filter((instruction) => instruction.keyword === 'EXPOSE')
    .flatMap((instruction) => instruction.args.split(/\s+/).map((p) => Number(p.replace(/\/\w+$/, ''))));
  return exposed.includes(port) ? [] : [`EXPOSE ${exposed.join(' ') || '(none)'} does not include ${port}`];
}

/** The service runs unprivileged and owns its data directory. */
export function checkUser(stage: Instruction[], dataDir: string): string[] {
  const user = stage
    .findLast((instruction) => instruction.keyword === 'USER')
    ?.args.split(':')[0]
    ?.trim();
  if (!user || user === 'root' || user === '0') return [`the container runs as ${user ?? 'root (no USER)'}`];
  const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const owns = new RegExp(
    `\\bchown\\s+(?:-\\S+\\s+)*${escaped(user)}(?::\\S+)?\\s+(?:\\S+\\s+)*${escaped(dataDir)}(?:\\s|$|&|;)`,
  );
  const chowned = stage.some((instruction) => instruction.keyword === 'RUN' && owns.test(instruction.args));
  return chowned ? [] : [`${dataDir} is not chowned to ${user}: the service could not write its data`];
}

/** A HEALTHCHECK asks the API's /healthz on the port it listens on. */
export function checkHealthcheck(stage: Instruction[], port: number): string[] {
  const instruction = stage.findLast((candidate) => candidate.keyword === 'HEALTHCHECK');
  const healthcheck = instruction && healthcheckOf(instruction);
  if (!healthcheck) return ['no HEALTHCHECK'];
  const command = healthcheck.command;
  const text = command.form === 'exec' ? command.argv.join(' ') : command.script;
  const problems: string[] = [];
  if (!text.includes('/healthz')) problems.push(`HEALTHCHECK does not ask /healthz: ${text}`);
  if (!text.includes(String(port)) && !text.includes('MRTQ_HTTP_PORT'))
    problems.push(`HEALTHCHECK does not use the API port ${port}: ${text}`);
  return problems;
}

/** The variables the image sets (ENV), in order. */
export function imageEnv(stage: Instruction[]): Record<string, string> {
  return Object.assign({}, ...stage.filter((i) => i.keyword === 'ENV').map(envOf)) as Record<string, string>;
}

const IMPORT =
  /^\s*(?:import|export)\s+(?!type\b)(?:[^;]*?\sfrom\s+)?'([^']+)'|\bimport\(\s*'([^']+)'\s*\)/gm;

/** The package an import specifier names (`@scope/name/sub` → `@scope/name`); undefined for relative and node: ones. */
function packageOf(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('node:')) return undefined;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(?:ts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/**
 * Every package the code in the image imports (type-only imports aside) is a production dependency,
 * so `npm ci --omit=dev` installs it; `allowed` names dev packages a code path the image never takes
 * loads (with the file that loads each).
 */
export function checkProductionImports(
  root: string,
  dirs: string[],
  dependencies: string[],
  allowed: Record<string, string>,
): string[] {
  return dirs.flatMap((dir) =>
    sourceFiles(join(root, dir)).flatMap((file) => {
      const path = relative(root, file);
      return [...readFileSync(file, 'utf8').matchAll(IMPORT)].flatMap((match) => {
        const name = packageOf(match[1] ?? match[2] ?? '');
        if (!name || dependencies.includes(name) || allowed[name] === path) return [];
        return [`${path} imports ${name}, which npm ci --omit=dev does not install`];
      });
    }),
  );
}
