import type { Command } from 'commander';
import { dumpTree, type TreeNode } from '../../queue/tree-dump.js';
import type { CliContext } from '../context.js';
import { connectForCommand } from '../connection.js';

function printHuman(nodes: TreeNode[], root: string, out: NodeJS.WritableStream): void {
  const base = root === '/' ? 0 : root.split('/').length - 1;
  for (const node of nodes) {
    const depth = node.path.split('/').length - 1 - base;
    const name = node.path === root ? node.path : node.path.slice(node.path.lastIndexOf('/') + 1);
    const flags = node.ephemeral ? ' (ephemeral)' : '';
    const data = node.data ? `  ${node.data.length > 120 ? node.data.slice(0, 117) + '...' : node.data}` : '';
    out.write(`${'  '.repeat(Math.max(0, depth - (root === '/' ? 1 : 0)))}${name}${flags}${data}\n`);
  }
}

/** `mrtq tree [path] [--json]`: every node under a path, sorted, with its data. */
export function registerTree(program: Command, ctx: CliContext): void {
  program
    .command('tree')
    .description('print every node under a path (default /, without /zookeeper), sorted by path')
    .argument('[path]', 'where to start', '/')
    .option('--json', 'one JSON object per line: {"path","data","ephemeral"}')
    .action(async (path: string, opts: { json?: boolean }) => {
      const client = await connectForCommand(ctx.config, ctx.zkFlag());
      try {
        const nodes = await dumpTree(client, path);
        if (opts.json) for (const node of nodes) ctx.stdout.write(JSON.stringify(node) + '\n');
        else printHuman(nodes, path, ctx.stdout);
      } finally {
        await client.close();
      }
    });
}
