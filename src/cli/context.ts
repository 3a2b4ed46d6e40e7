import type { Config } from '../config/config.js';

/** What every command receives: configuration, the global `--zk` flag, and where to write. */
export interface CliContext {
  config: Config;
  zkFlag(): string | undefined;
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}
