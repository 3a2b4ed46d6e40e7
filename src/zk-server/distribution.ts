import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** How to launch a ZooKeeper server JVM on this machine. */
export interface ZooKeeperDistribution {
  java: string;
  /** Java class path holding the server classes (and a log4j config directory when there is one). */
  classPath: string;
  /** Where it was found, for messages. */
  origin: string;
}

const DEBIAN_JAR = '/usr/share/java/zookeeper.jar';
const DEBIAN_CONF = '/etc/zookeeper/conf';

export class ZooKeeperNotInstalledError extends Error {
  readonly code = 'ZK_NOT_INSTALLED';
}

function findJava(javaHome: string | undefined): string | undefined {
  const candidates = [javaHome ? join(javaHome, 'bin', 'java') : undefined, '/usr/bin/java'];
  for (const candidate of candidates) if (candidate && existsSync(candidate)) return candidate;
  try {
    return execFileSync('sh', ['-c', 'command -v java'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

function fromZooKeeperHome(home: string): string | undefined {
  const lib = join(home, 'lib');
  if (!existsSync(lib)) return undefined;
  const hasServer = readdirSync(lib).some((f) => /^zookeeper-\d.*\.jar$/.test(f));
  return hasServer ? [join(home, 'conf'), join(lib, '*')].join(':') : undefined;
}

function locate(env: { zookeeperHome?: string; javaHome?: string }): ZooKeeperDistribution | string {
  const java = findJava(env.javaHome);
  if (env.zookeeperHome) {
    const classPath = fromZooKeeperHome(env.zookeeperHome);
    if (!classPath) return `ZOOKEEPER_HOME=${env.zookeeperHome} has no lib/zookeeper-*.jar`;
    if (!java) return 'no java found (set JAVA_HOME or install a JRE 11+)';
    return { java, classPath, origin: env.zookeeperHome };
  }
  if (!existsSync(DEBIAN_JAR))
    return `no ZooKeeper found (${DEBIAN_JAR} is missing and ZOOKEEPER_HOME is unset)`;
  if (!java) return 'no java found (set JAVA_HOME or install a JRE 11+)';
  return { java, classPath: `${DEBIAN_CONF}:${DEBIAN_JAR}`, origin: DEBIAN_JAR };
}

function isDebianLike(): boolean {
  try {
    return /^(ID|ID_LIKE)=.*\b(debian|ubuntu)\b/m.test(readFileSync('/etc/os-release', 'utf8'));
  } catch {
    return false;
  }
}

function aptInstallZooKeeper(): void {
  const opts = { stdio: 'inherit' as const, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } };
  execFileSync('apt-get', ['update'], opts);
  execFileSync('apt-get', ['install', '-y', 'zookeeper'], opts);
}

/**
 * Finds Java and a ZooKeeper distribution (ZOOKEEPER_HOME, else Debian's package). When none is
 * there and this process is root on Debian/Ubuntu, installs the `zookeeper` package; otherwise
 * throws an error that says exactly what to install.
 */
export function findDistribution(
  env: { zookeeperHome?: string; javaHome?: string },
  options: { allowInstall?: boolean } = {},
): ZooKeeperDistribution {
  let found = locate(env);
  const canInstall =
    options.allowInstall !== false && !env.zookeeperHome && process.getuid?.() === 0 && isDebianLike();
  if (typeof found === 'string' && canInstall) {
    aptInstallZooKeeper();
    found = locate(env);
  }
  if (typeof found === 'string') {
    throw new ZooKeeperNotInstalledError(
      `Cannot start a local ZooKeeper: ${found}. Install it with ` +
        `"sudo apt-get update && sudo apt-get install -y zookeeper" (Debian/Ubuntu; brings Java too), ` +
        `or unpack Apache ZooKeeper 3.8+ and set ZOOKEEPER_HOME, or point ZK_CONNECT at a running ensemble.`,
    );
  }
  return found;
}
