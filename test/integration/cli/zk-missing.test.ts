import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { parseConnectString } from '../../../src/zk/index.js';
import { runCliIn, userEnv } from '../../support/cli-process.js';

const BIN = join(import.meta.dirname, '..', '..', '..', 'bin', 'mrtq.js');

/** A loopback port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A server that accepts connections and never answers: a frozen ZooKeeper. */
async function silentServer(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A TCP relay to ZooKeeper that can be cut: every connection dropped, the port closed. */
async function relay(target: string): Promise<{ port: number; cut(): void }> {
  const [host = '127.0.0.1', port = '2181'] = (parseConnectString(target).servers.split(',')[0] ?? '').split(
    ':',
  );
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(Number(port), host);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    cut: () => {
      server.close();
      for (const socket of sockets) socket.destroy();
    },
  };
}

function expectOneLine(result: { code: number; stderr: string }, pattern: RegExp, what: string): void {
  expect({ what, code: result.code }).toEqual({ what, code: 3 });
  const lines = result.stderr.trim().split('\n');
  expect({ what, lines }).toEqual({ what, lines: [expect.stringMatching(pattern)] });
  expect(result.stderr).not.toMatch(/^\s+at /m);
}

describe('a missing ZooKeeper is exit 3 with one line, never a stack trace', () => {
  const cwd = mkdtempSync(join(tmpdir(), 'mrtq-nozk-'));
  const env = { HOME: cwd, MRTQ_DATA_DIR: join(cwd, 'data') };
  afterAll(() => rmSync(cwd, { recursive: true, force: true }));

  it('every command that talks to ZooKeeper, against a closed loopback port', async () => {
    const zk = `127.0.0.1:${await closedPort()}`;
    const commands = [
      ['tree', '--json'],
      ['jobs'],
      ['batches', '--json'],
      ['show', 'bid0000000001'],
      ['submit', 'sim:1', '--profile', 'demo'],
      ['hold', 'jid0000000001'],
      ['pause', 'ingest'],
      ['access', 'list'],
      ['bulk', 'requeue', '--batch', 'bid0000000001'],
      ['doctor'],
      ['cleanup', '--dry-run'],
      ['migrate-legacy', '--dry-run'],
      ['watch'],
    ];
    const results = await Promise.all(commands.map((args) => runCliIn(cwd, [...args, '--zk', zk], env)));
    results.forEach((result, i) =>
      expectOneLine(result, /^mrtq: ZooKeeper unavailable: could not connect/, commands[i]!.join(' ')),
    );
    const serve = await runCliIn(cwd, ['serve', '--zk', zk, '--start-timeout', '1000', '--no-http'], env);
    expect(serve.code).toBe(3);
    expect(serve.stderr.split('\n').filter((line) => line.startsWith('mrtq:'))).toEqual([
      expect.stringMatching(/^mrtq: ZooKeeper unavailable: ZooKeeper session at .* gave up after/),
    ]);
    expect(serve.stderr).not.toMatch(/^\s+at /m);
  }, 120_000);

  it('a server that accepts the connection and never answers (connect timeout)', async () => {
    const silent = await silentServer();
    try {
      const zk = `127.0.0.1:${silent.port}`;
      const results = await Promise.all(
        [['jobs'], ['tree', '/jobs']].map((args) => runCliIn(cwd, [...args, '--zk', zk], env)),
      );
      for (const result of results)
        expectOneLine(result, /^mrtq: ZooKeeper unavailable: could not connect .* within/, 'silent');
    } finally {
      await silent.close();
    }
  });

  it('nothing configured, nothing recorded: where it looked and how to point at ZooKeeper', async () => {
    const result = await runCliIn(cwd, ['jobs'], env);
    expectOneLine(
      result,
      /^mrtq: No ZooKeeper to talk to: .* set ZK_CONNECT .* set MRTQ_HOME .* mrtq zk up$/,
      'none',
    );
  });

  it('ZooKeeper gone in the middle of a command: the session is lost, exit 3 with one line', async () => {
    const cut = await relay(inject('zkConnect'));
    const proc = spawn(process.execPath, [BIN, 'watch', '--zk', `127.0.0.1:${cut.port}`], {
      cwd,
      env: userEnv({ ...env, ZK_SESSION_TIMEOUT_MS: '4000' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    proc.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => proc.once('close', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 30_000;
      while (!stderr.includes('watching;')) {
        if (Date.now() > deadline) throw new Error(`watch did not start: ${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      cut.cut();
      expect(await exited).toBe(3);
      const lines = stderr.trim().split('\n');
      expect(lines.slice(1)).toEqual([
        expect.stringMatching(
          /^mrtq: ZooKeeper unavailable: the session to .* was lost in the middle of the command/,
        ),
      ]);
    } finally {
      proc.kill('SIGKILL');
    }
  }, 90_000);
});
