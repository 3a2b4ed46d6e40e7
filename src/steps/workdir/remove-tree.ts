import { Worker } from 'node:worker_threads';

/**
 * Removes directory trees in a worker thread with `fs.rmSync`: one message each way instead of
 * the thread-pool round trip per file and directory that `fs.promises.rm` makes (a one-file
 * object's working directory: about 30 of them, lstat, readdir, unlink and rmdir, each a promise
 * the service's event loop resolves, about 0.1-0.3 ms apiece on two busy cores). The worker
 * starts on first use and is referenced only while a removal waits, so it never keeps a process
 * alive; one that dies fails what it had and the next removal starts another.
 *
 * Tried and not kept (issue 36): the working directory's small records written the same way (an
 * atomic write is four round trips): a message cost the loop about as much as the round trips it
 * saved.
 */

// CommonJS run by `new Worker(…, { eval: true })`: the same from dist/ and from the sources.
const WORKER_SOURCE = `
const { rmSync } = require('node:fs');
const { parentPort } = require('node:worker_threads');
parentPort.on('message', ({ id, path }) => {
  try {
    rmSync(path, { recursive: true, force: true, maxRetries: 3 });
    parentPort.postMessage({ id });
  } catch (err) {
    const { message, code, errno, syscall } = err;
    parentPort.postMessage({ id, error: { message: String(message), code, errno, syscall, path: err.path } });
  }
});
`;

interface Waiting {
  resolve: () => void;
  reject: (err: Error) => void;
}

interface Reported {
  message: string;
  code?: string;
  errno?: number;
  syscall?: string;
  path?: string;
}

let worker: Worker | undefined;
const waiting = new Map<number, Waiting>();
let nextId = 0;

function started(): Worker {
  if (worker) return worker;
  const thread = new Worker(WORKER_SOURCE, { eval: true });
  thread.unref();
  thread.on('message', ({ id, error }: { id: number; error?: Reported }) => {
    const entry = waiting.get(id);
    if (!entry) return;
    waiting.delete(id);
    if (waiting.size === 0) thread.unref();
    if (!error) return entry.resolve();
    const fields = Object.fromEntries(Object.entries(error).filter(([, value]) => value !== undefined));
    entry.reject(Object.assign(new Error(error.message), fields));
  });
  const gone = (err: Error): void => {
    if (worker !== thread) return;
    worker = undefined;
    const failed = [...waiting.values()];
    waiting.clear();
    for (const entry of failed) entry.reject(err);
  };
  thread.on('error', gone);
  thread.on('exit', (code) => gone(new Error(`the removal thread exited (${code})`)));
  worker = thread;
  return thread;
}

/**
 * `rm -rf path`: the tree removed, nothing when it is not there. Rejects with the file system's
 * error (`code` as Node gives it).
 */
export function removeTree(path: string): Promise<void> {
  const thread = started();
  nextId = (nextId + 1) % Number.MAX_SAFE_INTEGER;
  const id = nextId;
  return new Promise<void>((resolve, reject) => {
    waiting.set(id, { resolve, reject });
    if (waiting.size === 1) thread.ref();
    thread.postMessage({ id, path });
  });
}
