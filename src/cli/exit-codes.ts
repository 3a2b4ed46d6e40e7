/** Exit codes of `mrtq`, so scripts can tell failures apart. */
export const ExitCode = {
  ok: 0,
  /** The command ran and found a problem (e.g. `doctor` found violations). */
  problems: 1,
  /** Bad arguments or configuration. */
  usage: 2,
  /** ZooKeeper could not be reached or started. */
  unavailable: 3,
  /** An unexpected error. */
  failure: 4,
} as const;

/** An error the command line reports as one line with a chosen exit code (no stack trace). */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
