import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, openSync, closeSync, writeFileSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { findDistribution, type ZooKeeperDistribution } from './distribution.js';
import { waitUntilServing } from './four-letter.js';

const HOST = '127.0.0.1';

export interface ServerProcessOptions {
  /** Directory holding zoo.cfg, the snapshot/log data and the server's output. Created if missing. */
  dir: string;
  clientPort: number;
  /** ZooKeeper tick in ms; sessions may last 2..20 ticks. */
  tickTime?: number;
  /** Extra zoo.cfg lines (quorum members, limits). */
  extraConfig?: string[];
  /** `myid` for an ensemble member. */
  myid?: number;
  /** Keep running after this process exits (`mrtq zk up`). */
  detached?: boolean;
  /**
   * Java heap of the server (default 1024 MB): ZooKeeper keeps the whole tree in memory, and a
   * queue of 100,000 jobs is about 800,000 nodes. A server out of heap exits without a word.
   */
  heapMb?: number;
  /** How long to wait for `ruok` → `imok`. */
  readyTimeoutMs?: number;
  distribution?: ZooKeeperDistribution;
  env?: { zookeeperHome?: string; javaHome?: string };
  /** Address the server listens on for clients (default 127.0.0.1). */
  host?: string;
  /**
   * A command the JVM is started through, e.g. `['ip', 'netns', 'exec', 'ns1']` to run it in a
   * network namespace (the prefix must exec the JVM, so that its pid is the server's).
   */
  commandPrefix?: string[];
}

/** One ZooKeeper server JVM on loopback, controlled by its own pid. */
export class ServerProcess {
  private child: ChildProcess | undefined;
  private exited: Promise<void> = Promise.resolve();

  constructor(
    readonly options: ServerProcessOptions,
    private readonly distribution: ZooKeeperDistribution,
    private currentPid?: number,
  ) {}

  get host(): string {
    return this.options.host ?? HOST;
  }
  get port(): number {
    return this.options.clientPort;
  }
  get connectString(): string {
    return `${this.host}:${this.options.clientPort}`;
  }
  get pid(): number | undefined {
    return this.currentPid;
  }
  get configFile(): string {
    return join(this.options.dir, 'zoo.cfg');
  }

  /** Starts the JVM and resolves once it answers `imok` (for an ensemble member: once it serves). */
  async start(): Promise<void> {
    const { dir, clientPort } = this.options;
    const dataDir = join(dir, 'data');
    mkdirSync(dataDir, { recursive: true });
    if (this.options.myid !== undefined) writeFileSync(join(dataDir, 'myid'), `${this.options.myid}\n`);
    const tick = this.options.tickTime ?? 500;
    const config = [
      `tickTime=${tick}`,
      `dataDir=${dataDir}`,
      `clientPort=${clientPort}`,
      `clientPortAddress=${this.host}`,
      'admin.enableServer=false',
      '4lw.commands.whitelist=*',
      'initLimit=20',
      'syncLimit=10',
      `maxSessionTimeout=${tick * 120}`,
      ...(this.options.extraConfig ?? []),
    ];
    writeFileSync(this.configFile, config.join('\n') + '\n');
    const mainClass =
      this.options.myid === undefined
        ? 'org.apache.zookeeper.server.ZooKeeperServerMain'
        : 'org.apache.zookeeper.server.quorum.QuorumPeerMain';
    const out = openSync(join(dir, 'server.log'), 'a');
    const [command, ...prefixArgs] = [...(this.options.commandPrefix ?? []), this.distribution.java];
    try {
      this.child = spawn(
        command,
        [
          ...prefixArgs,
          `-Xmx${this.options.heapMb ?? 1024}m`,
          '-cp',
          this.distribution.classPath,
          mainClass,
          this.configFile,
        ],
        { stdio: ['ignore', out, out], detached: this.options.detached ?? false },
      );
    } finally {
      closeSync(out);
    }
    const child = this.child;
    this.currentPid = child.pid;
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    if (this.options.detached) child.unref();
    const ready = await Promise.race([
      waitUntilServing(this.host, clientPort, this.options.readyTimeoutMs ?? 30_000),
      this.exited.then(() => false),
    ]);
    if (!ready) {
      await this.stop();
      throw new Error(
        `ZooKeeper on ${this.connectString} did not start (see ${join(dir, 'server.log')}): ${tailOfLog(dir)}`,
      );
    }
  }

  /** Stops the server: SIGTERM, then SIGKILL if it has not exited within `graceMs`. */
  async stop(graceMs = 5000): Promise<void> {
    const pid = this.currentPid;
    if (pid === undefined) return;
    this.signal('SIGCONT'); // a frozen JVM cannot handle SIGTERM
    this.signal('SIGTERM');
    if (!(await this.waitForExit(graceMs))) {
      this.signal('SIGKILL');
      await this.waitForExit(graceMs);
    }
    this.currentPid = undefined;
    this.child = undefined;
  }

  /** Kills the server at once (a crash). */
  async kill(): Promise<void> {
    this.signal('SIGKILL');
    await this.waitForExit(5000);
    this.currentPid = undefined;
    this.child = undefined;
  }

  /**
   * Freezes the JVM (SIGSTOP): it keeps its sockets open but answers nothing. Returns once every
   * thread of it is stopped: the signal reaches a JVM's threads asynchronously, and one still
   * running could answer a request sent just after (the watchdog test saw that about 1 run in 5).
   */
  freeze(): void {
    this.signal('SIGSTOP');
    if (this.currentPid !== undefined) waitUntilStopped(this.currentPid, 2000);
  }

  /** Resumes a frozen JVM (SIGCONT). */
  thaw(): void {
    this.signal('SIGCONT');
  }

  private signal(signal: NodeJS.Signals): void {
    if (this.currentPid === undefined) return;
    try {
      process.kill(this.currentPid, signal);
    } catch {
      // already gone
    }
  }

  private async waitForExit(ms: number): Promise<boolean> {
    if (this.child) {
      const timeout = new Promise<boolean>((r) => setTimeout(() => r(false), ms).unref());
      return Promise.race([this.exited.then(() => true), timeout]);
    }
    // Not our child (a detached server from an earlier run): poll the pid.
    const until = Date.now() + ms;
    while (Date.now() < until) {
      if (!isAlive(this.currentPid)) return true;
      await new Promise((r) => setTimeout(r, 50));
    }
    return !isAlive(this.currentPid);
  }
}

export function isAlive(pid: number | undefined): boolean {
  if (pid === undefined) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function tailOfLog(dir: string): string {
  try {
    return readFileSync(join(dir, 'server.log'), 'utf8').split('\n').slice(-5).join(' | ');
  } catch {
    return 'no log';
  }
}

/** Creates (does not start) a server process, locating Java and ZooKeeper first. */
export function createServerProcess(options: ServerProcessOptions): ServerProcess {
  const distribution = options.distribution ?? findDistribution(options.env ?? {});
  return new ServerProcess(options, distribution);
}

/** Re-attaches to a detached server started earlier (by pid), e.g. for `mrtq zk down`. */
export function attachServerProcess(options: ServerProcessOptions, pid: number): ServerProcess {
  const distribution = options.distribution ?? { java: 'java', classPath: '', origin: 'attached' };
  return new ServerProcess(options, distribution, pid);
}

/** Waits (blocking, up to `ms`) until /proc shows every thread of `pid` stopped; no-op without /proc. */
function waitUntilStopped(pid: number, ms: number): void {
  const pause = new Int32Array(new SharedArrayBuffer(4));
  const until = Date.now() + ms;
  while (Date.now() < until && !allThreadsStopped(pid)) Atomics.wait(pause, 0, 0, 2);
}

function allThreadsStopped(pid: number): boolean {
  try {
    return readdirSync(`/proc/${pid}/task`).every((task) => {
      const stat = readFileSync(`/proc/${pid}/task/${task}/stat`, 'utf8');
      // The state letter follows the command name, which is in parentheses and may hold spaces.
      const state = stat.charAt(stat.lastIndexOf(')') + 2);
      return state === 'T' || state === 't';
    });
  } catch {
    return true; // no /proc (not Linux), or the process is gone: nothing to wait for
  }
}
