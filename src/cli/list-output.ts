import type { Command } from 'commander';
import type { Listing } from '../views/listing/listing.js';
import { lineWriter } from './line-writer.js';

/** Flags every list command takes. */
export interface ListFlags {
  json?: boolean;
  ndjson?: boolean;
  offset: number;
  limit: number;
  after?: string;
}

/** The paging and output flags of `mrtq jobs` and `mrtq batches`. */
export function listOptions(command: Command, what: string): Command {
  return command
    .option('--after <id>', `start after this ${what} (the "next" of the page before)`)
    .option('--json', 'print one page as {"items","total","next"} ("next" only when more follow)')
    .option(
      '--ndjson',
      `stream every matching ${what} (from --after on; at most --limit when given) as one JSON object per line, written as read`,
    );
}

/**
 * Writes `items` as JSON lines as they come, at most `limit` of them; how many were written.
 * Memory stays bounded however many there are.
 */
export async function writeNdjson<T>(
  items: AsyncIterable<T>,
  out: NodeJS.WritableStream,
  limit = Infinity,
): Promise<number> {
  const writer = lineWriter(out);
  let written = 0;
  try {
    for await (const item of items) {
      if (written >= limit) break;
      await writer.line(JSON.stringify(item));
      written += 1;
    }
  } finally {
    await writer.flush();
  }
  return written;
}

/** The `--limit` an NDJSON stream keeps: only one given on the command line (the default is a page's). */
export function streamLimit(command: Command, limit: number): number | undefined {
  return command.getOptionValueSource('limit') === 'default' ? undefined : limit;
}

/** The line under a table: how many of how many, and how to ask for the next page. */
export function pageFooter(page: Listing<unknown>, note = ''): string {
  const next = page.next ? `; next page: the same with --after ${page.next}` : '';
  return `${page.items.length} of ${page.total}${note}${next}\n`;
}
