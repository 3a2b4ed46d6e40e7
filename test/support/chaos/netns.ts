import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

/**
 * A small network of Linux network namespaces for partition scenarios: one namespace per node
 * (a ZooKeeper member, an engine), each joined by its own link to a "hub" namespace that routes
 * between them, and one link from this (the test's) namespace to the hub, so that the test
 * itself reaches every node and is never partitioned. Only iproute2 is needed:
 *
 * - a node cut off: its link's hub end set down (`ip link set dev X down`);
 * - a partition between nodes, in one direction or both: `ip rule ... blackhole` in the hub, so
 *   the hub drops what one node sends the other without a word, as a broken network does;
 * - loss and delay on a node's link: `tc qdisc ... netem` on both ends, or, on a kernel built
 *   without sch_netem (such as this project's build machine), a userspace relay
 *   (`netem-relay.py`, over two TUN devices) in place of the node's veth pair, which drops and
 *   delays packets the same way. Which one a lab uses is in {@link NetLab.impairment}.
 *
 * Names carry this process's pid (`mrtqnet-<pid>-<random>-<node>`), so that a later run sweeps
 * what a killed run left ({@link sweepStaleNamespaces}). Addresses are in a 10.x.0.0/16 that no
 * route of this namespace uses: node i is 10.x.i.2, its hub end 10.x.i.1; the test 10.x.0.2.
 */

const PREFIX = 'mrtqnet-';
const RELAY = join(import.meta.dirname, 'netem-relay.py');

function run(command: string, args: readonly string[]): string {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    const { stderr } = err as { stderr?: string | Buffer };
    const said = (stderr ?? '').toString().trim();
    throw new Error(`${command} ${args.join(' ')}: ${said || (err as Error).message}`, { cause: err });
  }
}

const ip = (...args: string[]): string => run('ip', args);

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every process in network namespace `ns` killed (SIGKILL), then the namespace deleted. */
function removeNamespace(ns: string): void {
  let pids: number[] = [];
  try {
    pids = ip('netns', 'pids', ns).split(/\s+/).filter(Boolean).map(Number);
  } catch {
    // already gone
  }
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // exited meanwhile
    }
  }
  try {
    ip('netns', 'del', ns);
  } catch {
    // already gone
  }
}

function listNamespaces(): string[] {
  return ip('netns', 'list')
    .split('\n')
    .map((line) => line.split(' ')[0]!)
    .filter(Boolean);
}

/**
 * Why network namespaces cannot be made here, or undefined when they can (root, iproute2, a
 * kernel with network namespaces and veth): a namespace with a veth pair is made and removed.
 */
export function netnsUnavailable(): string | undefined {
  if (process.platform !== 'linux') return `network namespaces are Linux's (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return 'making network namespaces needs root (run the tests as root)';
  const probe = `${PREFIX}${process.pid}-probe${randomBytes(2).toString('hex')}`;
  try {
    ip('netns', 'add', probe);
  } catch (err) {
    return `\`ip netns add\` failed: ${(err as Error).message}`;
  }
  try {
    ip('-n', probe, 'link', 'add', 'a0', 'type', 'veth', 'peer', 'name', 'b0');
    return undefined;
  } catch (err) {
    return `no veth pair in a namespace: ${(err as Error).message}`;
  } finally {
    removeNamespace(probe);
  }
}

/**
 * Removes the namespaces (and so their links, routes and processes) that earlier runs of this
 * module left behind: those whose creating process is gone. Returns their names.
 */
export function sweepStaleNamespaces(): string[] {
  const swept: string[] = [];
  for (const ns of listNamespaces()) {
    const match = new RegExp(`^${PREFIX}(\\d+)-`).exec(ns);
    if (!match || isAlive(Number(match[1]))) continue;
    removeNamespace(ns);
    swept.push(ns);
  }
  return swept;
}

/** A second octet for 10.x.0.0/16 that no address or route of this namespace touches. */
function freeSubnet(): number {
  const used = ip('-4', '-o', 'addr', 'show') + ip('-4', 'route', 'show', 'table', 'all');
  for (let i = 0; i < 50; i++) {
    const octet = 200 + ((process.pid + i) % 50);
    if (!used.includes(`10.${octet}.`)) return octet;
  }
  throw new Error('no free 10.x.0.0/16 between 10.200 and 10.249 for the namespaces');
}

export interface Impairment {
  /** Packets dropped on each direction, in percent. */
  lossPercent: number;
  /** Delay added on each direction, in ms. */
  delayMs: number;
}

/** The userspace relay standing in for netem on one node's link. */
class Relay {
  private readonly waiting: ((line: string) => void)[] = [];
  readonly exited: Promise<void>;

  constructor(readonly child: ChildProcess) {
    createInterface({ input: child.stdout! }).on('line', (line) => this.waiting.shift()?.(line));
    // A relay that died is reported by `next`, not by an EPIPE nobody handles.
    child.stdin!.on('error', () => undefined);
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    this.exited = new Promise((resolve) => child.once('exit', () => resolve()));
    void this.exited.then(() => {
      for (const waiter of this.waiting.splice(0)) waiter(`exited: ${stderr.trim()}`);
    });
  }

  /** Sends a command (undefined: none) and resolves with the relay's next line. */
  async next(command?: string, expect?: RegExp): Promise<string> {
    let waiter: (line: string) => void = () => undefined;
    const line = new Promise<string>((resolve) => this.waiting.push((waiter = resolve)));
    if (command !== undefined) this.child.stdin!.write(`${command}\n`);
    const timer = setTimeout(() => {
      // Not answered (the scenario fails on it): stop waiting.
      const at = this.waiting.indexOf(waiter);
      if (at >= 0) this.waiting.splice(at, 1);
      waiter('no answer within 10 s');
    }, 10_000);
    const answer = await line.finally(() => clearTimeout(timer));
    if (expect && !expect.test(answer)) throw new Error(`netem relay ${command ?? 'start'}: ${answer}`);
    return answer;
  }

  stop(): void {
    this.child.stdin!.end();
    this.child.kill('SIGKILL');
  }
}

export interface NetNode {
  name: string;
  /** The network namespace. */
  ns: string;
  address: string;
  /** The node's link in its namespace. */
  dev: string;
  /** The link's end in the hub. */
  hubDev: string;
  relay?: Relay;
}

export interface NetLabOptions {
  /** Node names, one namespace each (short: they end the namespace name). */
  nodes: string[];
  /** Nodes whose link may be impaired (loss, delay): on a kernel without netem they get a relay. */
  impairable?: string[];
}

export class NetLab {
  private readonly nodes = new Map<string, NetNode>();
  private readonly rules: number[] = [];
  private readonly impaired = new Set<string>();
  private readonly cutNodes = new Set<string>();
  private nextRule = 1000;
  private destroyed = false;
  private readonly onExit = () => this.destroySync();
  /** How loss and delay are made: the kernel's netem, or the userspace relay. */
  impairment: 'netem' | 'relay' = 'relay';
  readonly hub: string;
  /** The test's own end of its link to the hub. */
  private readonly rootDev: string;
  private readonly subnet: number;

  private constructor(readonly id: string) {
    this.hub = `${id}-hub`;
    this.rootDev = `mqn${randomBytes(3).toString('hex')}`;
    this.subnet = freeSubnet();
  }

  /** Makes the namespaces and links; on failure removes what it made and rethrows. */
  static async create(options: NetLabOptions): Promise<NetLab> {
    const lab = new NetLab(`${PREFIX}${process.pid}-${randomBytes(2).toString('hex')}`);
    process.once('exit', lab.onExit);
    try {
      await lab.build(options);
      return lab;
    } catch (err) {
      lab.destroySync();
      throw err;
    }
  }

  private async build(options: NetLabOptions): Promise<void> {
    const { hub, rootDev } = this;
    const net = `10.${this.subnet}`;
    ip('netns', 'add', hub);
    ip('-n', hub, 'link', 'set', 'dev', 'lo', 'up');
    run('ip', ['netns', 'exec', hub, 'sysctl', '-qw', 'net.ipv4.ip_forward=1']);
    // The test's link: this namespace reaches every node through the hub.
    ip('link', 'add', rootDev, 'type', 'veth', 'peer', 'name', 'c0', 'netns', hub);
    ip('addr', 'add', `${net}.0.2/24`, 'dev', rootDev);
    ip('link', 'set', 'dev', rootDev, 'up');
    ip('-n', hub, 'addr', 'add', `${net}.0.1/24`, 'dev', 'c0');
    ip('-n', hub, 'link', 'set', 'dev', 'c0', 'up');
    ip('route', 'add', `${net}.0.0/16`, 'via', `${net}.0.1`, 'dev', rootDev);
    this.impairment = this.kernelHasNetem() ? 'netem' : 'relay';

    for (const [i, name] of options.nodes.entries()) {
      const index = i + 1;
      const node: NetNode = {
        name,
        ns: `${this.id}-${name}`,
        address: `${net}.${index}.2`,
        dev: 'v0',
        hubDev: `h${index}`,
      };
      this.nodes.set(name, node);
      ip('netns', 'add', node.ns);
      ip('-n', node.ns, 'link', 'set', 'dev', 'lo', 'up');
      const gateway = `${net}.${index}.1`;
      if (options.impairable?.includes(name) && this.impairment === 'relay') {
        // Two TUN devices made in the hub by the relay; one moves into the node's namespace.
        node.relay = new Relay(
          spawn('ip', ['netns', 'exec', hub, 'python3', RELAY, `t${index}`, node.hubDev], {
            stdio: ['pipe', 'pipe', 'pipe'],
          }),
        );
        await node.relay.next(undefined, /^ready$/);
        ip('-n', hub, 'link', 'set', 'dev', `t${index}`, 'netns', node.ns);
        ip('-n', node.ns, 'link', 'set', 'dev', `t${index}`, 'name', node.dev);
        ip('-n', node.ns, 'addr', 'add', node.address, 'peer', gateway, 'dev', node.dev);
        ip('-n', hub, 'addr', 'add', gateway, 'peer', node.address, 'dev', node.hubDev);
      } else {
        ip('-n', node.ns, 'link', 'add', node.dev, 'type', 'veth', 'peer', 'name', node.hubDev, 'netns', hub);
        ip('-n', node.ns, 'addr', 'add', `${node.address}/24`, 'dev', node.dev);
        ip('-n', hub, 'addr', 'add', `${gateway}/24`, 'dev', node.hubDev);
      }
      ip('-n', node.ns, 'link', 'set', 'dev', node.dev, 'up');
      ip('-n', hub, 'link', 'set', 'dev', node.hubDev, 'up');
      ip('-n', node.ns, 'route', 'add', 'default', 'via', gateway, 'dev', node.dev);
    }
  }

  /** Whether `tc qdisc ... netem` works here (tried on the hub's end of the test's link). */
  private kernelHasNetem(): boolean {
    try {
      run('ip', [
        'netns',
        'exec',
        this.hub,
        'tc',
        'qdisc',
        'add',
        'dev',
        'c0',
        'root',
        'netem',
        'delay',
        '1ms',
      ]);
      run('ip', ['netns', 'exec', this.hub, 'tc', 'qdisc', 'del', 'dev', 'c0', 'root']);
      return true;
    } catch {
      return false;
    }
  }

  node(name: string): NetNode {
    const node = this.nodes.get(name);
    if (!node) throw new RangeError(`no node ${name} in ${this.id}`);
    return node;
  }

  address(name: string): string {
    return this.node(name).address;
  }

  /** The command prefix that runs a program in the node's namespace (it execs the program). */
  commandPrefix(name: string): string[] {
    return ['ip', 'netns', 'exec', this.node(name).ns];
  }

  /** Cuts a node off: its link's hub end goes down, so nothing reaches it or leaves it. */
  cut(name: string): void {
    ip('-n', this.hub, 'link', 'set', 'dev', this.node(name).hubDev, 'down');
    this.cutNodes.add(name);
  }

  /** Joins a node cut off again. */
  restore(name: string): void {
    ip('-n', this.hub, 'link', 'set', 'dev', this.node(name).hubDev, 'up');
    this.cutNodes.delete(name);
  }

  /** Drops, silently, every packet `from` sends `to` (one direction only). */
  block(from: string, to: string): void {
    const priority = this.nextRule++;
    ip(
      '-n',
      this.hub,
      'rule',
      'add',
      'from',
      `${this.address(from)}/32`,
      'to',
      `${this.address(to)}/32`,
      'blackhole',
      'pref',
      String(priority),
    );
    this.rules.push(priority);
  }

  /** Partitions `a` from each of `others`, both ways. */
  isolate(a: string, others: readonly string[]): void {
    for (const other of others) {
      this.block(a, other);
      this.block(other, a);
    }
  }

  /** Loss and delay on each direction of a node's link (made impairable at creation). */
  async impair(name: string, how: Impairment): Promise<void> {
    const node = this.node(name);
    if (node.relay) {
      const { lossPercent: loss, delayMs: delay } = how;
      await node.relay.next(`set ${loss} ${delay} ${loss} ${delay}`, /^ok$/);
    } else {
      const netem = ['netem', 'loss', `${how.lossPercent}%`, 'delay', `${how.delayMs}ms`];
      for (const [ns, dev] of [
        [node.ns, node.dev],
        [this.hub, node.hubDev],
      ] as const)
        run('ip', ['netns', 'exec', ns, 'tc', 'qdisc', 'replace', 'dev', dev, 'root', ...netem]);
    }
    this.impaired.add(name);
  }

  /** Packets the relay of a node's link passed and dropped so far (undefined with netem). */
  async linkStats(name: string): Promise<{ passed: number; dropped: number } | undefined> {
    const relay = this.node(name).relay;
    if (!relay) return undefined;
    const [, passed, dropped] = (await relay.next('stats', /^stats \d+ \d+$/)).split(' ');
    return { passed: Number(passed), dropped: Number(dropped) };
  }

  async clearImpairment(name: string): Promise<void> {
    const node = this.node(name);
    if (node.relay) await node.relay.next('set 0 0 0 0', /^ok$/);
    else
      for (const [ns, dev] of [
        [node.ns, node.dev],
        [this.hub, node.hubDev],
      ] as const) {
        try {
          run('ip', ['netns', 'exec', ns, 'tc', 'qdisc', 'del', 'dev', dev, 'root']);
        } catch {
          // none there
        }
      }
    this.impaired.delete(name);
  }

  /** Undoes every partition, cut and impairment. */
  async heal(): Promise<void> {
    for (const priority of this.rules.splice(0)) ip('-n', this.hub, 'rule', 'del', 'pref', String(priority));
    for (const name of [...this.cutNodes]) this.restore(name);
    for (const name of [...this.impaired]) await this.clearImpairment(name);
  }

  /** Kills every process left in the lab's namespaces and removes them (and so every link). */
  destroy(): void {
    this.destroySync();
  }

  private destroySync(): void {
    if (this.destroyed) return;
    this.destroyed = true;
    process.removeListener('exit', this.onExit);
    for (const node of this.nodes.values()) {
      node.relay?.stop();
      removeNamespace(node.ns);
    }
    // Deleting the hub deletes the test's link (a veth pair goes with either end) and its route.
    removeNamespace(this.hub);
    try {
      ip('link', 'del', 'dev', this.rootDev);
    } catch {
      // gone with the hub
    }
  }
}
