import { spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../../src/zk-server/free-port.js';
import { eventually } from './eventually.js';

/** `python3 -m http.server` serving a directory on loopback: HTTP/1.0, each connection closed after its response. */
export interface PythonHttpServer {
  url(path: string): string;
  close(): Promise<void>;
}

/** Starts `python3 -m http.server` in `dir` on a free loopback port and waits until it answers. */
export async function startPythonHttpServer(dir: string): Promise<PythonHttpServer> {
  const port = await freePort();
  const child: ChildProcess = spawn('python3', ['-m', 'http.server', String(port), '--bind', '127.0.0.1'], {
    cwd: dir,
    stdio: 'ignore',
  });
  const base = `http://127.0.0.1:${port}`;
  await eventually(
    () =>
      fetch(`${base}/`).then(
        (res) => res.status,
        () => 0,
      ),
    (status) => status === 200,
    30_000,
    50,
  );
  return {
    url: (path) => `${base}${path}`,
    close: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
