import { join } from 'node:path';
import { findDistribution } from './distribution.js';
import { freePort } from './free-port.js';
import { createServerProcess, type ServerProcess } from './server-process.js';
import { serverMode } from './four-letter.js';

/** A ZooKeeper ensemble of local server processes on loopback, for failover tests. */
export interface Ensemble {
  members: ServerProcess[];
  /** All members, comma-separated, as clients take it. */
  connectString: string;
  /** Stops member `index` (0-based) with SIGTERM, or SIGKILL when `crash` is set. */
  stopMember(index: number, crash?: boolean): Promise<void>;
  /** Starts a stopped member again with the same id, ports and data. */
  startMember(index: number): Promise<void>;
  /** Index of the current leader, or undefined while there is none. */
  leaderIndex(): Promise<number | undefined>;
  stop(): Promise<void>;
}

/** Where each member runs, when not all on loopback of this network namespace. */
export interface EnsemblePlacement {
  /** Address of member `i` (it listens there for clients, quorum and election, on ZooKeeper's usual ports). */
  hosts: string[];
  /** The command member `i`'s JVM is started through (e.g. `ip netns exec ns1`). */
  commandPrefix?: (index: number) => string[];
}

/**
 * Starts `size` servers (default 3) with a quorum configuration under `dir`. Each member gets
 * its own client, quorum and election ports on 127.0.0.1 and its own data directory; with a
 * `placement`, each member its own address (its own network namespace) and ports 2181/2888/3888.
 */
export async function startEnsemble(
  dir: string,
  size = 3,
  tickTime = 500,
  placement?: EnsemblePlacement,
): Promise<Ensemble> {
  const distribution = findDistribution({});
  const hosts = placement?.hosts ?? Array.from({ length: size }, () => '127.0.0.1');
  const ports = await Promise.all(
    Array.from({ length: size }, async () =>
      placement
        ? { client: 2181, quorum: 2888, election: 3888 }
        : { client: await freePort(), quorum: await freePort(), election: await freePort() },
    ),
  );
  const quorumLines = ports.map((p, i) => `server.${i + 1}=${hosts[i]}:${p.quorum}:${p.election}`);
  const members = ports.map((p, i) =>
    createServerProcess({
      host: hosts[i],
      commandPrefix: placement?.commandPrefix?.(i),
      dir: join(dir, `member-${i + 1}`),
      clientPort: p.client,
      myid: i + 1,
      tickTime,
      extraConfig: quorumLines,
      distribution,
      readyTimeoutMs: 60_000,
    }),
  );
  // Members answer `imok` only once a quorum has formed, so start them together.
  await Promise.all(members.map((m) => m.start()));
  const member = (index: number): ServerProcess => {
    const m = members[index];
    if (!m) throw new RangeError(`ensemble has no member ${index}`);
    return m;
  };
  return {
    members,
    connectString: members.map((m) => m.connectString).join(','),
    stopMember: (index, crash = false) => (crash ? member(index).kill() : member(index).stop()),
    startMember: (index) => member(index).start(),
    async leaderIndex() {
      const modes = await Promise.all(members.map((m) => serverMode(m.host, m.port)));
      const index = modes.indexOf('leader');
      return index < 0 ? undefined : index;
    },
    async stop() {
      await Promise.all(members.map((m) => m.stop()));
    },
  };
}
