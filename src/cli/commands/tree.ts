import type { Command } from 'commander';
import type { TreeNode } from '../../queue/tree/dump.js';
import type { CliContext } from '../context.js';
import { connect } from '../lazy.js';
import { lineWriter } from '../line-writer.js';

function humanLine(node: TreeNode, root: string): string {
  const base = root === '/' ? 0 : root.split('/').length - 1;
  const depth = node.path.split('/').length - 1 - base;
  const name = node.path === root ? node.path : node.path.slice(node.path.lastIndexOf('/') + 1);
  const flags = node.ephemeral ? ' (ephemeral)' : '';
  const data = node.data ? `  ${node.data.length > 120 ? node.data.slice(0, 117) + '...' : node.data}` : '';
  return `${'  '.repeat(Math.max(0, depth - (root === '/' ? 1 : 0)))}${name}${flags}${data}`;
}

/** `mrtq tree [path] [--json|--ndjson]`: every node under a path, depth first, streamed as it is read. */
export function registerTree(program: Command, ctx: CliContext): void {
  program
    .command('tree')
    .description(
      'print every node under a path (default /, without /zookeeper), depth first with children sorted by name, as it is read',
    )
    .argument('[path]', 'where to start', '/')
    .option('--json', 'one JSON object per line (NDJSON): {"path","data","ephemeral"}')
    .option('--ndjson', 'the same as --json')
    .action(async (path: string, opts: { json?: boolean; ndjson?: boolean }) => {
      const { streamTree } = await import('../../queue/tree/dump.js');
      const client = await connect(ctx);
      const out = lineWriter(ctx.stdout);
      try {
        const json = opts.json === true || opts.ndjson === true;
        for await (const node of streamTree(client, path))
          await out.line(json ? JSON.stringify(node) : humanLine(node, path));
      } finally {
        await out.flush();
        await client.close();
      }
    });
}
