import { createReadStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { Parser, type ReadEntry } from 'tar';
import { entryPath, invalid, writeEntry, type UnpackContext, type UnpackedFile } from './entry.js';
import { joinInside } from '../../workdir/safe-path.js';

const FILES = new Set(['File', 'OldFile', 'ContiguousFile']);
const DIRECTORIES = new Set(['Directory', 'GNUDumpDir']);

async function unpackEntry(ctx: UnpackContext, entry: ReadEntry): Promise<UnpackedFile | undefined> {
  ctx.budget.entry();
  const path = entryPath(ctx, entry.path);
  if (DIRECTORIES.has(entry.type)) {
    await mkdir(joinInside(ctx.dest, path), { recursive: true });
    entry.resume();
    return undefined;
  }
  if (!FILES.has(entry.type)) {
    throw invalid(ctx, `entry "${entry.path}" is a ${entry.type}; only files and directories are allowed`);
  }
  ctx.budget.declared(path, entry.size);
  return writeEntry(ctx, path, entry as AsyncIterable<Buffer>);
}

/**
 * Handles the parser's entries one after another (tar emits the next entry only once this one
 * is consumed). The first refusal is kept, stops the parser, and later entries are drained.
 */
function entryQueue(ctx: UnpackContext, parser: Parser) {
  const files: UnpackedFile[] = [];
  let failure: Error | undefined;
  let chain = Promise.resolve();
  parser.on('entry', (entry: ReadEntry) => {
    chain = chain.then(async () => {
      if (failure !== undefined) return void entry.resume();
      try {
        const file = await unpackEntry(ctx, entry);
        if (file) files.push(file);
      } catch (err) {
        failure = err instanceof Error ? err : new Error(String(err));
        entry.resume();
        parser.abort(new Error('stopped'));
      }
    });
  });
  return { files, failure: () => failure, settled: () => chain };
}

/**
 * Unpacks a `.tar`, `.tar.gz` or `.tgz` (tar detects gzip by itself) entry by entry. Links,
 * devices and unsafe names are refused, not skipped; an abort stops the parser.
 */
export async function unpackTar(ctx: UnpackContext): Promise<UnpackedFile[]> {
  // Our budget measures the ratio on file contents (with a floor), so tar's own raw-byte ratio is off.
  const parser = new Parser({ strict: true, maxDecompressionRatio: Infinity });
  const source = createReadStream(ctx.archive);
  const queue = entryQueue(ctx, parser);
  const stop = (): void => parser.abort(new Error('aborted'));
  ctx.signal.addEventListener('abort', stop, { once: true });
  const parsed = new Promise<void>((resolve, reject) => {
    parser.on('end', resolve).on('error', reject);
    source.on('error', reject);
  });
  source.pipe(parser);
  try {
    await parsed.catch(async (err: unknown) => {
      await queue.settled();
      ctx.signal.throwIfAborted();
      throw queue.failure() ?? invalid(ctx, `not a readable tar (${(err as Error).message})`, err);
    });
    await queue.settled();
    const failure = queue.failure();
    if (failure) throw failure;
    return queue.files;
  } finally {
    ctx.signal.removeEventListener('abort', stop);
    source.destroy();
  }
}
