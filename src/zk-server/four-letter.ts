import { connect } from 'node:net';

/**
 * Sends a ZooKeeper four-letter command (`ruok`, `srvr`, `mntr`…) and returns the reply text.
 * Resolves with '' when the server closes without answering; rejects on connect errors or timeout.
 */
export function fourLetterWord(host: string, port: number, word: string, timeoutMs = 1000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`${word} to ${host}:${port} timed out after ${timeoutMs} ms`));
    }, timeoutMs);
    socket.on('connect', () => socket.end(word));
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
  });
}

/** True when the server answers `ruok` with `imok` within the timeout. */
export async function isServing(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  try {
    return (await fourLetterWord(host, port, 'ruok', timeoutMs)) === 'imok';
  } catch {
    return false;
  }
}

/**
 * Polls `srvr` until the server reports a mode (standalone, leader, follower) or the deadline
 * passes. `ruok` is not enough: an ensemble member answers `imok` before it has joined a quorum.
 */
export async function waitUntilServing(host: string, port: number, deadlineMs: number): Promise<boolean> {
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
    if ((await serverMode(host, port)) !== undefined) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

/** The server's mode from `srvr` (`standalone`, `leader`, `follower`), or undefined when it does not answer. */
export async function serverMode(host: string, port: number): Promise<string | undefined> {
  try {
    const reply = await fourLetterWord(host, port, 'srvr', 1000);
    return /^Mode: (\w+)/m.exec(reply)?.[1];
  } catch {
    return undefined;
  }
}
