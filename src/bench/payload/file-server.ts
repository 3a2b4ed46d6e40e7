import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ServerKind } from './sizes.js';
import { killedOnInterrupt } from '../interrupt.js';

/**
 * The depositor's file server, run as its own process so that it does not share the measuring
 * process's event loop: HTTP/1.1 on loopback, GET and HEAD of the files under a root, each with
 * its Content-Length and a strong ETag, streamed in 1 MiB reads. `closing` answers every request
 * with `Connection: close`. It prints its port when it listens, and exits when its stdin closes
 * (the bench ended, even without stopping it). Written as a file at run time, as the loop probe
 * of scale-service.ts, so that it is no part of the service.
 */
const FILE_SERVER = `import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { join, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream';

const [root, kind] = process.argv.slice(2);
const base = resolve(root);

async function answer(req, res) {
  if (kind === 'closing') res.setHeader('connection', 'close');
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { allow: 'GET, HEAD', 'content-length': 0 });
    return res.end();
  }
  const file = resolve(join(base, decodeURIComponent(new URL(req.url, 'http://x').pathname)));
  const stats = file.startsWith(base + sep) ? await stat(file).catch(() => undefined) : undefined;
  if (!stats?.isFile()) {
    res.writeHead(404, { 'content-length': 0 });
    return res.end();
  }
  const etag = '"' + stats.ino.toString(16) + '-' + stats.size.toString(16) + '-' + Math.trunc(stats.mtimeMs).toString(16) + '"';
  res.writeHead(200, {
    'content-type': 'application/octet-stream',
    'content-length': stats.size,
    etag,
    'last-modified': stats.mtime.toUTCString(),
  });
  if (req.method === 'HEAD') return res.end();
  pipeline(createReadStream(file, { highWaterMark: 1024 * 1024 }), res, () => undefined);
}

const server = createServer((req, res) =>
  answer(req, res).catch(() => {
    if (!res.headersSent) res.writeHead(500, { 'content-length': 0 });
    res.end();
  }),
);
server.keepAliveTimeout = 60000;
server.listen(0, '127.0.0.1', () => process.stdout.write(server.address().port + '\\n'));
// The bench holds this pipe open: when it ends, however it ended, so does this server.
process.stdin.on('end', () => process.exit(0));
process.stdin.on('error', () => process.exit(0));
process.stdin.resume();
`;

/** A running file server: its base URL, and how to stop it. */
export interface FileServer {
  kind: ServerKind;
  base: string;
  stop(): Promise<void>;
}

/** Starts the file server of `kind` over `root` (the script is written to `scriptDir`). */
export async function startFileServer(
  root: string,
  kind: ServerKind,
  scriptDir: string,
): Promise<FileServer> {
  const script = join(scriptDir, 'file-server.mjs');
  writeFileSync(script, FILE_SERVER);
  const child = killedOnInterrupt(
    spawn(process.execPath, [script, root, kind], { stdio: ['pipe', 'pipe', 'pipe'] }),
  );
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  let output = '';
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const port = await new Promise<number>((resolve, reject) => {
    child.once('error', reject);
    const timer = setTimeout(() => reject(new Error(`file server did not start in 10 s: ${output}`)), 10_000);
    child.stdout.once('data', (chunk: Buffer) => {
      clearTimeout(timer);
      resolve(Number(chunk.toString().trim()));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`file server exited (${code}): ${output}`));
    });
  }).catch((err: unknown) => {
    child.kill('SIGKILL');
    throw err;
  });
  return {
    kind,
    base: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
