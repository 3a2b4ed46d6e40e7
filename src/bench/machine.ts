import { readFileSync } from 'node:fs';
import { arch, cpus, release, totalmem } from 'node:os';
import { fourLetterWord } from '../zk-server/four-letter.js';
import { parseConnectString } from '../zk/index.js';

/** What the figures were measured on: they mean little without it. */
export interface MachineDescription {
  os: string;
  kernel: string;
  arch: string;
  cpu: string;
  cores: number;
  memoryGiB: number;
  node: string;
  zookeeper: string;
}

function osName(): string {
  try {
    const match = /^PRETTY_NAME="?([^"\n]+)"?/m.exec(readFileSync('/etc/os-release', 'utf8'));
    return match?.[1] ?? process.platform;
  } catch {
    return process.platform;
  }
}

export async function describeMachine(connectString: string): Promise<MachineDescription> {
  const [first] = parseConnectString(connectString).servers.split(',');
  const [host, port] = (first ?? '').split(':');
  const srvr = await fourLetterWord(host ?? '127.0.0.1', Number(port), 'srvr').catch(() => '');
  const version = /Zookeeper version: ([^,\n-]+)/.exec(srvr)?.[1]?.trim() ?? 'unknown';
  return {
    os: osName(),
    kernel: release(),
    arch: arch(),
    cpu: cpus()[0]?.model.trim() ?? 'unknown',
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    zookeeper: version,
  };
}
