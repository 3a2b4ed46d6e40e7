import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { AlertsView } from '../alerts/report.js';
import type { AuditLog } from '../audit/audit-log.js';
import type { Role } from '../auth/actor.js';
import type { CredentialStore } from '../auth/credential-store.js';
import type { Engine } from '../engine/engine.js';
import type { HistoryReader } from '../history/reader.js';
import type { QueueContext } from '../queue/tree/context.js';
import type { ProfileStore } from '../steps/formats/profiles/profiles.js';
import type { SessionState } from '../zk/index.js';
import type { MetricsProvider } from '../telemetry/prometheus.js';
import type { Counters } from '../telemetry/prometheus.js';
import type { MetricsHistory } from '../telemetry/metrics-history.js';
import type { EventFanout } from './events/fanout.js';
import type { JsonSchema } from './schemas.js';

/** What the API reads of an engine running in the same process (metrics, fair shares in use). */
export type EngineView = Pick<Engine, 'served' | 'running'> & Partial<Pick<Engine, 'shareUse'>>;

/** What `createHttpApi` is given by the composition root. */
export interface HttpApiDeps {
  queue: QueueContext;
  profiles: ProfileStore;
  /**
   * MRTQ_API_TOKEN: a bearer token with role admin, named `token`, besides the credentials file.
   * With neither, routes that change the queue are refused (403) and event streams are open.
   */
  token: string | undefined;
  /**
   * The credentials file (`MRTQ_CREDENTIALS`): named tokens and basic users with roles and
   * collections (src/auth/credentials-file.ts, docs/http.md); none without it.
   */
  credentialsFile?: string;
  /** The engine of this process, when it runs one (in-flight gauges). */
  engine?: EngineView;
  /** Where uploaded manifests are written (inside the `file://` roots); no uploads without it. */
  uploadDir?: string;
  /**
   * The HTTP basic credentials file (`user:<scrypt hash>` lines, from before roles): users with
   * role submit for Merritt's front door (`/poster/*`); none without it.
   */
  basicAuthFile?: string;
  /** The largest payload `/poster/*` takes, bytes (default DEFAULT_UPLOAD_MAX_BYTES); larger: 413. */
  uploadMaxBytes?: number;
  /**
   * How many bytes a client of an event stream may fall behind before it is cut off (default
   * 8 MiB, see DEFAULT_EVENTS_BUFFER_BYTES).
   */
  eventsBufferBytes?: number;
  /** Jaeger UI base URL: job and batch answers then link to `<jaegerUrl>/trace/<traceId>`. */
  jaegerUrl?: string;
  /** Metrics this process keeps outside the API (engine, ZooKeeper client), added to `/metrics`. */
  metrics?: MetricsProvider;
  /** True when this process can do its work: ZooKeeper session live and consumers running. */
  ready(): boolean;
  /** The deployment this process runs and the job states it leaves to Merritt's services (`/readyz`). */
  deployment?: { mode: string; leftToMerritt: readonly { state: string; service: string }[] };
  /** With MRTQ_PUBLIC_URL (any deployment): the work root, served read-only under `/ingestqueue` (see routes-ingest-queue.ts). */
  ingestQueueRoot?: string;
  /** The audit log operator actions are written to and read from (`GET /audit`); none: not recorded. */
  audit?: AuditLog;
  /** The journal of job and batch histories (`GET /jobs/:jid/history`); none: only what ZooKeeper holds. */
  history?: HistoryReader;
  /** The last hour of this process's own metrics (`GET /metrics/history`), when it samples them. */
  metricsHistory?: MetricsHistory;
  /** The alert rules this process evaluates (`GET /alerts`, `mrtq_alert_*` in `/metrics`); none: not evaluated here. */
  alerts?: AlertsView;
  log: Logger;
}

/** Everything route handlers share: the deps plus the state the API keeps. */
export interface ApiContext extends HttpApiDeps {
  counters: Counters;
  sessionState(): SessionState;
  /** The clients of `/events` and their subscription to the transition feed. */
  events: EventFanout;
  /** Creates the queue's folders once (a submission may come before any engine started). */
  ensureTree(): Promise<void>;
  /** The credentials of `token`, `credentialsFile` and `basicAuthFile`, read again when they change. */
  credentials: CredentialStore;
}

/** The schemas of one route; the same objects validate requests and build the OpenAPI document. */
export interface RouteSchema {
  params?: JsonSchema;
  querystring?: JsonSchema;
  body?: JsonSchema;
  /** Answers by status code (`200`, `201`, `4xx`…). */
  response?: Readonly<Record<string, JsonSchema>>;
}

/** What a route acts on, for the collections a credential is limited to (see RouteSpec.reach). */
export type RouteReach = 'job' | 'batch' | 'collection' | 'submission' | 'bulk';

/** One route of the API: how it is served and how it is documented. */
export interface RouteSpec {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** Fastify syntax (`/jobs/:jid/hold`); the OpenAPI path uses `{jid}`. */
  url: string;
  summary: string;
  tag: 'health' | 'batches' | 'jobs' | 'operators' | 'events' | 'dashboard';
  /** Changes the queue: a credential is required, and the action is audited. */
  mutating?: boolean;
  /**
   * The least role that may call it (src/auth/actor.ts); absent: anyone, without a credential
   * (reads), except that a mutating route without one needs `admin`. See guardsOf in app.ts.
   */
  role?: Role;
  /**
   * What it acts on, for a credential limited to collections (see reach.ts): a job (`:jid`), a
   * batch (`:bid`), a collection (`:mnemonic`), a submission (its collection or profile's), a
   * bulk filter (its `collection`); absent: the whole queue, refused to such credentials.
   */
  reach?: RouteReach;
  /** Names the action in a refused transition's message: "cannot hold job: …". */
  action?: string;
  /** Content type of the request body when it is not JSON. */
  consumes?: string;
  /** Content type of a successful answer when it is not JSON. */
  produces?: string;
  schema: RouteSchema;
  handler: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
}
