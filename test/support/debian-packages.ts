import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

function isDebianLike(): boolean {
  try {
    return /^(ID|ID_LIKE)=.*\b(debian|ubuntu)\b/m.test(readFileSync('/etc/os-release', 'utf8'));
  } catch {
    return false;
  }
}

/** Whether a command runs here (`<command> <probe>` exits 0). */
export function hasCommand(command: string, probe = '--version'): boolean {
  return spawnSync(command, [probe], { stdio: 'ignore' }).status === 0;
}

/**
 * Installs Debian packages when this process is root on Debian/Ubuntu (apt-get update first, as
 * on a brand-new machine); returns why it could not, or undefined when it did.
 */
export function installDebianPackages(packages: readonly string[]): string | undefined {
  if (packages.length === 0) return undefined;
  if (process.getuid?.() !== 0 || !isDebianLike())
    return `install Debian's ${packages.join(', ')} (sudo apt-get install -y ${packages.join(' ')})`;
  const opts = { stdio: 'inherit' as const, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } };
  try {
    execFileSync('apt-get', ['update'], opts);
    execFileSync('apt-get', ['install', '-y', ...packages], opts);
    return undefined;
  } catch (err) {
    return `apt-get install -y ${packages.join(' ')} failed: ${(err as Error).message}`;
  }
}

/**
 * The programs a depositor's side runs in the tests (a python3 file server, openssl for a
 * self-signed certificate, bzip2 and unzip for containers, curl for posts), with the Debian
 * package of each and how to probe it.
 */
const DEPOSITOR_TOOLS = [
  { command: 'python3', probe: '--version', pkg: 'python3' },
  { command: 'openssl', probe: 'version', pkg: 'openssl' },
  { command: 'bzip2', probe: '--help', pkg: 'bzip2' },
  { command: 'unzip', probe: '-v', pkg: 'unzip' },
  { command: 'curl', probe: '--version', pkg: 'curl' },
] as const;

/** Installs the depositor-side tools that are missing; returns what is still missing, if anything. */
export function provideDepositorTools(): string | undefined {
  const missing = DEPOSITOR_TOOLS.filter((tool) => !hasCommand(tool.command, tool.probe));
  if (missing.length === 0) return undefined;
  const why = installDebianPackages(missing.map((tool) => tool.pkg));
  const still = missing.filter((tool) => !hasCommand(tool.command, tool.probe));
  return still.length === 0
    ? undefined
    : `${still.map((t) => t.command).join(', ')} missing: ${why ?? 'not installed'}`;
}
