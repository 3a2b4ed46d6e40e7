import { pino, type Logger } from 'pino';
import { EmptyError, first, firstValueFrom, map, throwError, timeout } from 'rxjs';
import { ZkClient } from './client.js';
import { ZkError } from './errors.js';
import { parseConnectString, validatePath } from './paths.js';
import { Session } from './session.js';
import type { ZkOptions } from './types.js';
import { guardInstalledLibrary } from './version-guard.js';

/** Options with their defaults applied. */
interface Resolved {
  connectString: string;
  sessionTimeoutMs: number;
  requestTimeoutMs: number;
  watchdogIntervalMs: number | undefined;
  connectTimeoutMs: number;
  createChroot: boolean;
  auth: ZkOptions['auth'];
  acl: 'open' | 'creator';
  log: Logger;
}

/** Upper bound of the random pause between reconnect rounds (the library's default is 1 s). */
const SPIN_DELAY_MS = 250;

/**
 * Connects this process's ZooKeeper session. Resolves once the first session is connected;
 * rejects with CONNECTION_LOSS after `connectTimeoutMs`. With a chroot in the connect string and
 * `createChroot` (default), the chroot node is created first if missing.
 *
 * Throws at once if the installed node-zookeeper-client still ignores an expected version of 0
 * in transactions (the patch is missing).
 */
export async function connectZk(options: ZkOptions): Promise<ZkClient> {
  const resolved = prepare(options);
  const deadline = Date.now() + resolved.connectTimeoutMs;
  const { chroot } = parseConnectString(resolved.connectString);
  if (resolved.createChroot) await createChroot(resolved, deadline);
  const client = await open(resolved, deadline, chroot);
  client.observeRequests(options.onRequest);
  return client;
}

/**
 * Makes this process's client and starts connecting it without waiting (Curator's `start()`):
 * the library tries the servers until a session is made, however long that takes, so a service
 * can answer its health checks meanwhile. Wait for the session with {@link whenConnected}; a
 * missing chroot is not created here ({@link ensureChroot}). Throws at once only for options it
 * cannot use (BAD_ARGUMENTS) or a library without its patch.
 */
export function createZk(options: ZkOptions): ZkClient {
  const resolved = prepare(options);
  const session = newSession(resolved);
  session.start();
  const client = clientOf(session, resolved, parseConnectString(resolved.connectString).chroot);
  client.observeRequests(options.onRequest);
  return client;
}

/**
 * Creates the chroot of `options.connectString` when it is missing, through a short session of
 * its own; rejects with CONNECTION_LOSS when no session is made within `connectTimeoutMs`.
 */
export async function ensureChroot(options: ZkOptions): Promise<void> {
  const resolved = prepare(options);
  await createChroot(resolved, Date.now() + resolved.connectTimeoutMs);
}

/**
 * Resolves once `zk` has a live session (at once when it has one); rejects with CONNECTION_LOSS
 * (retryable) after `timeoutMs`, or with CLOSED when the client is closed meanwhile.
 */
export function whenConnected(zk: ZkClient, timeoutMs: number): Promise<void> {
  const connected$ = zk.session$.pipe(
    first((event) => event.state === 'connected'),
    map(() => undefined),
    timeout({
      first: timeoutMs,
      with: () =>
        throwError(
          () =>
            new ZkError('CONNECTION_LOSS', {
              message: `no ZooKeeper session within ${timeoutMs} ms`,
            }),
        ),
    }),
  );
  return firstValueFrom(connected$).catch((err: unknown) => {
    if (err instanceof EmptyError) throw new ZkError('CLOSED', { message: 'the client was closed' });
    throw err;
  });
}

function prepare(options: ZkOptions): Resolved {
  guardInstalledLibrary();
  return resolveOptions(options);
}

async function createChroot(resolved: Resolved, deadline: number): Promise<void> {
  const { servers, chroot } = parseConnectString(resolved.connectString);
  if (!chroot) return;
  const admin = await open({ ...resolved, connectString: servers }, deadline, undefined);
  try {
    await admin.mkdirp(chroot);
  } finally {
    await admin.close();
  }
}

async function open(resolved: Resolved, deadline: number, chroot: string | undefined): Promise<ZkClient> {
  const session = newSession(resolved);
  if (!(await session.open(Math.max(1, deadline - Date.now())))) {
    throw new ZkError('CONNECTION_LOSS', {
      message: `could not connect to ZooKeeper at ${resolved.connectString} within ${resolved.connectTimeoutMs} ms`,
    });
  }
  return clientOf(session, resolved, chroot);
}

function newSession(resolved: Resolved): Session {
  return new Session({
    connectString: resolved.connectString,
    library: { sessionTimeoutMs: resolved.sessionTimeoutMs, spinDelayMs: SPIN_DELAY_MS, auth: resolved.auth },
    watchdogIntervalMs: resolved.watchdogIntervalMs,
    log: resolved.log,
  });
}

function clientOf(session: Session, resolved: Resolved, chroot: string | undefined): ZkClient {
  return new ZkClient(session, {
    requestTimeoutMs: resolved.requestTimeoutMs,
    acl: resolved.acl,
    chroot,
    log: resolved.log,
  });
}

function resolveOptions(options: ZkOptions): Resolved {
  const sessionTimeoutMs = positive('sessionTimeoutMs', options.sessionTimeoutMs) ?? 10_000;
  const acl = options.acl ?? 'open';
  if (acl === 'creator' && !options.auth) {
    throw badOption("acl 'creator' needs auth: the creator is identified by its credentials");
  }
  if (options.auth && !/^[^:]+:.*$/.test(options.auth.credentials)) {
    throw badOption('auth.credentials must be "user:password"');
  }
  const { chroot } = parseConnectString(options.connectString);
  if (chroot) validatePath(chroot, 'connect chroot');
  return {
    connectString: options.connectString,
    sessionTimeoutMs,
    requestTimeoutMs:
      positive('requestTimeoutMs', options.requestTimeoutMs) ?? Math.min(sessionTimeoutMs / 2, 5000),
    watchdogIntervalMs: positive('watchdogIntervalMs', options.watchdogIntervalMs),
    connectTimeoutMs: positive('connectTimeoutMs', options.connectTimeoutMs) ?? 15_000,
    createChroot: options.createChroot ?? true,
    auth: options.auth,
    acl,
    log: (options.logger ?? pino({ level: 'silent' })).child({ component: 'zk' }),
  };
}

function positive(name: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isFinite(value) || value <= 0)
    throw badOption(`${name} must be a positive number, got ${value}`);
  return value;
}

function badOption(message: string): ZkError {
  return new ZkError('BAD_ARGUMENTS', { message: `connectZk: ${message}` });
}
