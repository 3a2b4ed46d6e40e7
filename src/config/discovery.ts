import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { packageRoot } from '../package-root.js';

/** Names of a service's config file in `MRTQ_HOME` or a directory above the current one. */
export const CONFIG_FILE_NAMES: readonly string[] = ['mrtq.yaml', 'mrtq.yml', 'mrtq.json'];
/** Names of the per-user config file in `$XDG_CONFIG_HOME/mrtq` (default `~/.config/mrtq`). */
const USER_FILE_NAMES: readonly string[] = ['config.yaml', 'config.yml', 'config.json'];

/** Where the settings and the service's data were found, and where else was looked. */
export interface ConfigSources {
  /** The config file read, if any. */
  file: string | undefined;
  /** How it was found. */
  fileFrom: '--config' | 'MRTQ_CONFIG' | 'MRTQ_HOME' | 'directory' | 'user' | undefined;
  /**
   * The service's home: `MRTQ_HOME`, else the directory of an `mrtq.yaml` found from the current
   * directory upward, else this package's directory. Its `.data` is the default data directory.
   */
  home: string;
  homeFrom: 'MRTQ_HOME' | 'config file' | 'package';
  /** The places looked in for a config file, in order (for messages). */
  searched: string[];
}

function firstExisting(dir: string, names: readonly string[]): string | undefined {
  return names.map((name) => join(dir, name)).find((file) => existsSync(file));
}

/** The per-user config directory: `$XDG_CONFIG_HOME/mrtq`, else `$HOME/.config/mrtq`. */
function userConfigDir(env: NodeJS.ProcessEnv): string | undefined {
  if (env.XDG_CONFIG_HOME) return join(env.XDG_CONFIG_HOME, 'mrtq');
  return env.HOME ? join(env.HOME, '.config', 'mrtq') : undefined;
}

/**
 * Finds the config file and the service's home (README, "Configuration"), in this order:
 * `--config`, `MRTQ_CONFIG`; with `MRTQ_HOME` set, `$MRTQ_HOME/mrtq.yaml` (and nothing else); else
 * the nearest `mrtq.yaml` (`.yml`, `.json`) from `cwd` upward; else the per-user
 * `$XDG_CONFIG_HOME/mrtq/config.yaml`. None found: the environment alone.
 */
export function findConfig(env: NodeJS.ProcessEnv, cwd: string, flag?: string): ConfigSources {
  const mrtqHome = env.MRTQ_HOME?.trim() ? resolve(cwd, env.MRTQ_HOME.trim()) : undefined;
  const home = { home: mrtqHome ?? packageRoot(), homeFrom: mrtqHome ? 'MRTQ_HOME' : 'package' } as const;
  if (flag) return { file: resolve(cwd, flag), fileFrom: '--config', searched: [], ...home };
  if (env.MRTQ_CONFIG?.trim())
    return { file: resolve(cwd, env.MRTQ_CONFIG.trim()), fileFrom: 'MRTQ_CONFIG', searched: [], ...home };
  if (mrtqHome) {
    const file = firstExisting(mrtqHome, CONFIG_FILE_NAMES);
    return { file, fileFrom: file ? 'MRTQ_HOME' : undefined, searched: [mrtqHome], ...home };
  }
  const searched: string[] = [];
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    searched.push(dir);
    const file = firstExisting(dir, CONFIG_FILE_NAMES);
    if (file) return { file, fileFrom: 'directory', searched, home: dir, homeFrom: 'config file' };
    if (dirname(dir) === dir) break;
  }
  const user = userConfigDir(env);
  if (user) {
    searched.push(user);
    const file = firstExisting(user, USER_FILE_NAMES);
    if (file) return { file, fileFrom: 'user', searched, ...home };
  }
  return { file: undefined, fileFrom: undefined, searched, ...home };
}

/** The places looked in, shortly: `/a/b and its parents, ~/.config/mrtq`. */
export function describeSearch(sources: ConfigSources): string {
  const [first, ...rest] = sources.searched;
  if (first === undefined) return sources.file ?? 'nowhere';
  const parents = rest.filter((dir) => first.startsWith(dir));
  const others = rest.filter((dir) => !first.startsWith(dir));
  return [parents.length > 0 ? `${first} and its parents` : first, ...others].join(', ');
}
