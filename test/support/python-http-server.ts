import { spawn } from 'node:child_process';

/** `python3 -m http.server` serving a directory on loopback: HTTP/1.0, each connection closed after its response. */
export interface PythonHttpServer {
  port: number;
  url(path: string): string;
  close(): Promise<void>;
}

/**
 * Starts `python3 -m http.server` on a port the system picks (read from its first line, so no
 * other process can take it meanwhile), serving `root` on 127.0.0.1.
 */
export async function startPythonHttpServer(root: string): Promise<PythonHttpServer> {
  const args = ['-u', '-m', 'http.server', '0', '--bind', '127.0.0.1', '--directory', root];
  const child = spawn('python3', args, { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = / port (\d+) /.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`python3 -m http.server exited (${code}): ${out}`)));
  });
  child.stdout.resume();
  return {
    port,
    url: (path) => `http://127.0.0.1:${port}${path}`,
    close: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
