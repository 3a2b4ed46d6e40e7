/**
 * Errors of the intake side of ingest (fetching, manifests, profiles, containers). Each has a
 * stable code; messages name what the depositor or operator can fix (the URL, the manifest
 * line, the profile file and field, the container entry).
 */
export type IntakeErrorCode =
  /** Not a URL this engine may fetch: unknown scheme, malformed, `file://` outside the roots. */
  | 'FETCH_REFUSED'
  /** HTTP 404/410, or a `file://` path that does not exist. */
  | 'FETCH_NOT_FOUND'
  /** Any other non-2xx HTTP status. */
  | 'FETCH_STATUS'
  /** Connection refused or reset, DNS failure, a response cut short. */
  | 'FETCH_NETWORK'
  | 'FETCH_TIMEOUT'
  /** Larger than `maxFileBytes` / `maxManifestBytes`. */
  | 'FETCH_TOO_LARGE'
  | 'SIZE_MISMATCH'
  | 'DIGEST_MISMATCH'
  | 'MANIFEST_INVALID'
  | 'PROFILE_UNKNOWN'
  | 'PROFILE_INVALID'
  /** A file name that would land outside the object's directory (absolute, `..`). */
  | 'PATH_UNSAFE'
  /** Unreadable or unsafe container: unsupported format, `..` entry, symlink, corrupt archive. */
  | 'CONTAINER_INVALID'
  /** Container over its entry count, entry size, total size or compression-ratio cap. */
  | 'CONTAINER_TOO_LARGE'
  /** A submission the engine cannot expand (unknown type, missing payload URL). */
  | 'SUBMISSION_INVALID';

/** Options of every intake error. */
export interface IntakeErrorOptions {
  cause?: unknown;
  /** Trying again may succeed (network errors, timeouts, 5xx). */
  retryable?: boolean;
}

/** Base of every intake error: `code` is stable, `retryable` says whether another attempt may help. */
export class IntakeError extends Error {
  readonly retryable: boolean;

  constructor(
    readonly code: IntakeErrorCode,
    message: string,
    options: IntakeErrorOptions = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'IntakeError';
    this.retryable = options.retryable ?? false;
  }
}

/** A URL that could not be fetched or whose content did not verify. */
export class FetchError extends IntakeError {
  /** HTTP status, when the server answered. */
  readonly status: number | undefined;
  /** Attempts made before giving up. */
  readonly attempts: number;

  constructor(
    code: IntakeErrorCode,
    readonly url: string,
    message: string,
    options: IntakeErrorOptions & { status?: number; attempts?: number } = {},
  ) {
    super(code, message, options);
    this.name = 'FetchError';
    this.status = options.status;
    this.attempts = options.attempts ?? 1;
  }
}

/** A checkm manifest that cannot be used; `line` is 1-based when one line is at fault. */
export class ManifestError extends IntakeError {
  constructor(
    message: string,
    readonly line?: number,
    options: IntakeErrorOptions = {},
  ) {
    super('MANIFEST_INVALID', message, options);
    this.name = 'ManifestError';
  }
}

/** A submission names a profile that is not among the loaded ones. */
export class UnknownProfileError extends IntakeError {
  constructor(
    readonly profile: string,
    known: readonly string[],
  ) {
    const list = known.length > 0 ? known.join(', ') : '(none)';
    super('PROFILE_UNKNOWN', `unknown profile "${profile}"; known profiles: ${list}`);
    this.name = 'UnknownProfileError';
  }
}

/** Profile files with invalid fields; `problems` lists each as `<file>: <field>: <what>`. */
export class ProfileError extends IntakeError {
  constructor(readonly problems: readonly string[]) {
    super('PROFILE_INVALID', `invalid profiles: ${problems.join('; ')}`);
    this.name = 'ProfileError';
  }
}

/** A container that is refused (unsafe, corrupt, unsupported) or over its limits. */
export class ContainerError extends IntakeError {
  constructor(
    code: 'CONTAINER_INVALID' | 'CONTAINER_TOO_LARGE',
    message: string,
    options?: IntakeErrorOptions,
  ) {
    super(code, message, options);
    this.name = 'ContainerError';
  }
}

/** True for an intake error, optionally of one code. */
export function isIntakeError(err: unknown, code?: IntakeErrorCode): err is IntakeError {
  return err instanceof IntakeError && (code === undefined || err.code === code);
}
