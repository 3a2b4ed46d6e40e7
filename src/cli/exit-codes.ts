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
  /** The lifecycle does not allow that action in the item's state. */
  refused: 5,
  /** Someone else holds the item (its lock), or it changed meanwhile: try again. */
  busy: 6,
  /** No such batch, job or access request. */
  notFound: 7,
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
