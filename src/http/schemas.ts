import { batchStates, type JobLifecycle, BATCH_FOLDERS } from '../../machines/index.js';
import { SORT_KEYS, SORT_ORDERS } from '../views/listing/sort.js';
import { QUEUE_NAMES } from '../queue/tree/paths.js';
import { SAFE_ID_MAX, SAFE_ID_PATTERN } from '../queue/tree/safe-id.js';
import { LIFECYCLE_NAMES } from './lifecycles.js';
import { SUBMISSION_KINDS } from '../steps/batch/submission-kinds.js';

/**
 * The JSON schemas the routes validate with and the OpenAPI document is built from (one object
 * each, so the two cannot drift). Bodies are validated strictly: no type coercion, no unknown
 * fields. Query values arrive as text, so numbers in the query are digit strings.
 */
export type JsonSchema = { readonly [key: string]: unknown };

/** A name that becomes a node or file name: letters, digits, `.`, `_`, `-`; not `.` or `..`. */
const SAFE_NAME = SAFE_ID_PATTERN;
const text = (maxLength: number, extra: JsonSchema = {}): JsonSchema => ({
  type: 'string',
  minLength: 1,
  maxLength,
  ...extra,
});

/** The submission types a batch can have (docs/ingest.md): the kinds the engine expands. */
export const SUBMISSION_TYPES = SUBMISSION_KINDS;

/** A pattern matching `word` in any case (JSON Schema patterns have no flags). */
const anyCase = (word: string): string =>
  [...word].map((c) => (/[a-z]/i.test(c) ? `[${c.toUpperCase()}${c.toLowerCase()}]` : c)).join('');

/**
 * Every digest Merritt names (mrt-core `MessageDigestType`), in any case, with or without `-`
 * (`SHA-256`, `sha256`, `CRC32`, `Adler-32`); parseDigest then checks the value's length.
 */
export const DIGEST_TYPE_PATTERN = `^(?:${[
  `${anyCase('md')}-?5`,
  `${anyCase('sha')}-?(?:1|256|384|512)`,
  `${anyCase('crc')}-?32`,
  `${anyCase('adler')}-?32`,
].join('|')})$`;

/** A digest value: hex (decimal checksums are digits, hex too), its length checked by parseDigest. */
export const DIGEST_VALUE_PATTERN = '^[0-9A-Fa-f]{1,128}$';

/** `POST /batches`. */
export const submitBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['profile', 'submitter', 'payloadUrl'],
  properties: {
    profile: text(100, { pattern: SAFE_NAME, description: 'ingest profile (a file in profiles/)' }),
    submitter: text(200),
    payloadUrl: text(4096, { format: 'uri', description: 'http(s), file:// under the roots, or sim:<n>' }),
    type: {
      type: 'string',
      enum: SUBMISSION_TYPES,
      description: "absent: guessed from the payload, as Merritt's ingest guesses an upload's",
    },
    uuid: text(SAFE_ID_MAX, {
      pattern: SAFE_NAME,
      description: 'the same submission under a known uuid returns its batch; another one is refused (409)',
    }),
    collection: text(100, { pattern: SAFE_NAME, description: "default: the profile's collection" }),
    erc_who: text(1000),
    erc_what: text(1000),
    erc_when: text(1000),
    erc_where: text(1000),
    digest_type: { type: 'string', pattern: DIGEST_TYPE_PATTERN },
    digest_value: { type: 'string', pattern: DIGEST_VALUE_PATTERN },
    local_id: text(1000, { description: "local ids, Merritt's `;`-separated list as one string" }),
    primary_id: text(200, { description: 'the ark of the object' }),
    note: text(4000),
    notification: text(1000, {
      description: "an address the batch's report goes to instead of the profile's",
    }),
    notification_format: text(20, { pattern: '^[A-Za-z0-9]+$', description: 'xml, json, anvl…' }),
    file_name: text(1000, { description: "the payload's file name (default: the URL's last segment)" }),
    file_size: text(15, {
      pattern: '^[0-9]+$',
      description: "the payload's size in bytes, in digits (as Merritt's form sends it); stored as a number",
    }),
  },
  dependencies: { digest_type: ['digest_value'], digest_value: ['digest_type'] },
};

/** The query of `POST /batches/manifest` (the manifest itself is the body). */
export const uploadQuery: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['profile', 'submitter', 'type'],
  properties: {
    profile: text(100, { pattern: SAFE_NAME }),
    submitter: text(200),
    type: { type: 'string', enum: ['object-manifest', 'batch-manifest', 'container-batch-manifest'] },
    uuid: text(SAFE_ID_MAX, {
      pattern: SAFE_NAME,
      description: 'the same manifest under a known uuid returns its batch; another one is refused (409)',
    }),
  },
};

export interface UploadQuery {
  profile: string;
  submitter: string;
  type: string;
  uuid?: string;
}

/** The body `POST /batches` accepts (see {@link submitBody}). */
export interface SubmitBody {
  profile: string;
  submitter: string;
  payloadUrl: string;
  type?: (typeof SUBMISSION_TYPES)[number];
  uuid?: string;
  collection?: string;
  erc_who?: string;
  erc_what?: string;
  erc_when?: string;
  erc_where?: string;
  digest_type?: string;
  digest_value?: string;
  local_id?: string;
  primary_id?: string;
  note?: string;
  notification?: string;
  notification_format?: string;
  file_name?: string;
  file_size?: string;
}

/** Every operator action. */
export const actionBody: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    force: { type: 'boolean', description: 'break a lock another session holds (needs a reason)' },
    reason: text(500),
    to: {
      ...text(100),
      description:
        'requeue of a job whose status the lifecycle does not know: the state it goes to (see GET /lifecycle)',
    },
  },
};

/** The body of an operator action (see {@link actionBody}). */
export interface ActionBody {
  force?: boolean;
  reason?: string;
  to?: string;
}

const digits = { type: 'string', pattern: '^[0-9]{1,9}$' };
const paging = {
  offset: { ...digits, description: 'items to skip (default 0; after `after` when both are given)' },
  after: {
    type: 'string',
    pattern: '^(?:(?:bid|jid)[0-9]{10}|[A-Za-z0-9_-]{16,400})$',
    description:
      "a cursor: the list continues after this item (a page's `next`: an id, or under `sort` an opaque cursor carrying the sort key, valid only with the same sort and order)",
  },
  limit: {
    type: 'string',
    pattern: '^(?:[1-9][0-9]?|[1-4][0-9]{2}|500)$',
    description: '1-500 (default 50)',
  },
};

/** `sort` and `order` of a list; `keys` are the sort keys the list accepts. */
const sorting = (keys: readonly string[], unsorted: string) => ({
  sort: {
    type: 'string',
    enum: [...keys],
    description: `created (id order), updated (status last changed)${keys.includes('priority') ? ', priority' : ''}, state (lifecycle order); ties by id. Without it: ${unsorted}`,
  },
  order: { type: 'string', enum: [...SORT_ORDERS], description: 'with sort: asc (default) or desc' },
});

/** `GET /batches`. */
export const batchQuery: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    status: { type: 'string', enum: [...batchStates, 'invalid'] },
    profile: text(100),
    submitter: text(200),
    ...paging,
    ...sorting(
      SORT_KEYS.filter((key) => key !== 'priority'),
      'newest first',
    ),
  },
};

/**
 * `GET /jobs`: the states are those of the lifecycle the queue runs, so the schema is built when
 * the API is created, not when this module loads.
 */
export const jobQuery = (lifecycle: Pick<JobLifecycle, 'states'>): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  properties: {
    state: { type: 'string', enum: [...lifecycle.states] },
    batch: text(30, { pattern: '^bid[0-9]+$' }),
    folder: {
      type: 'string',
      enum: [...BATCH_FOLDERS],
      description: "with batch: only the jobs in this folder of the batch's states",
    },
    collection: text(100),
    ...paging,
    ...sorting(SORT_KEYS, 'by state in priority order, else newest first'),
  },
});

/** `GET /batches/:id`: `jobs=none` leaves out the job refs (a batch of 50,000 jobs lists 50,000). */
export const batchShowQuery: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    jobs: { type: 'string', enum: ['all', 'none'], description: 'all (default): every job ref by folder' },
  },
};

/** Path parameters. */
export const params = {
  id: {
    type: 'object',
    required: ['id'],
    properties: { id: text(SAFE_ID_MAX, { pattern: SAFE_NAME, description: 'bid, jid or batch uuid' }) },
  },
  jid: { type: 'object', required: ['jid'], properties: { jid: text(30, { pattern: '^jid[0-9]+$' }) } },
  bid: { type: 'object', required: ['bid'], properties: { bid: text(30, { pattern: '^bid[0-9]+$' }) } },
  queue: {
    type: 'object',
    required: ['queue'],
    properties: { queue: { type: 'string', enum: QUEUE_NAMES } },
  },
  mnemonic: {
    type: 'object',
    required: ['mnemonic'],
    properties: { mnemonic: text(100, { pattern: SAFE_NAME }) },
  },
} as const satisfies Record<string, JsonSchema>;

/** Every error answer: a stable code and a message an operator can act on. */
export const errorBody: JsonSchema = {
  type: 'object',
  required: ['error', 'message'],
  properties: {
    error: { type: 'string' },
    message: { type: 'string' },
    field: { type: 'string', description: 'the request field a validation error is about' },
  },
};

const nullableText = { type: ['string', 'null'] };
const count = { type: 'integer', minimum: 0 };

/** `POST /batches` answers. */
export const submitted: JsonSchema = {
  type: 'object',
  required: ['bid', 'uuid', 'created'],
  properties: { bid: { type: 'string' }, uuid: { type: 'string' }, created: { type: 'boolean' } },
};

/** Jobs by progress category (see src/views/rollups/categories.ts), and how many there are. */
export const progressSchema: JsonSchema = {
  type: 'object',
  description: 'jobs by progress: done (final states), failed, inFlight (a step runs), waiting (the rest)',
  properties: { done: count, failed: count, inFlight: count, waiting: count, total: count },
};

/** Jobs by state: the states with none are left out. */
export const stateCounts: JsonSchema = { type: 'object', additionalProperties: count };

const batchSummary: JsonSchema = {
  type: 'object',
  properties: {
    ...{ bid: { type: 'string' }, uuid: { type: 'string' }, status: { type: 'string' } },
    ...{ profile: { type: 'string' }, submitter: { type: 'string' }, submissionDate: { type: 'string' } },
    ...{ lastModified: { type: 'string' }, message: nullableText, jobCount: count },
    counts: {
      type: 'object',
      properties: { processing: count, completed: count, failed: count, deleted: count },
    },
    states: { ...stateCounts, description: "the batch's jobs by state (GET /batches only)" },
    progress: progressSchema,
  },
};

const jobSummary: JsonSchema = {
  type: 'object',
  properties: {
    ...{ jid: { type: 'string' }, bid: { type: 'string' }, status: { type: 'string' }, priority: count },
    ...{ retryCount: count, lastSuccessfulStatus: nullableText, message: nullableText },
    ...{ lastModified: { type: 'string' }, locked: { type: 'boolean' } },
    rawStatus: {
      type: 'string',
      description: 'an invalid job: its status as written (e.g. one this lifecycle does not know)',
    },
  },
};

const listOf = (item: JsonSchema): JsonSchema => ({
  type: 'object',
  required: ['items', 'total'],
  properties: {
    items: { type: 'array', items: item },
    total: count,
    next: { type: 'string', description: 'when more items follow: the `after` of the next page' },
  },
});

/** `GET /batches` and `GET /jobs` answers. */
export const batchList = listOf(batchSummary);
export const jobList = listOf(jobSummary);

/** Answers whose shape is the store's record (see src/queue/*-load.ts): any object. */
export const anyObject: JsonSchema = { type: 'object', additionalProperties: true };

const stringList = { type: 'array', items: { type: 'string' } };

/** An engine process as registered in `/engines` (see src/queue/tree/engines.ts). */
const engineInfo: JsonSchema = {
  type: 'object',
  required: ['id', 'host', 'pid', 'sessionId'],
  properties: {
    ...{ id: { type: 'string' }, host: { type: 'string' }, pid: count, version: { type: 'string' } },
    ...{ states: stringList, batchWork: stringList, startedAt: { type: 'string' } },
    httpUrl: { type: 'string' },
    sessionId: { type: 'string', description: 'hex, as the ephemeralOwner of a lock node' },
    deployment: { type: 'string', description: 'standalone, or merritt (MRTQ_DEPLOYMENT)' },
    leftToMerritt: {
      type: 'array',
      description: "job states its deployment leaves to Merritt's services",
      items: { type: 'object', properties: { state: { type: 'string' }, service: { type: 'string' } } },
    },
    accessQueues: { ...stringList, description: 'access queues it consumes (small, large)' },
    accessLeftToMerritt: {
      type: 'array',
      description: "access queues its deployment leaves to Merritt's storage service (mrt-store)",
      items: { type: 'object', properties: { queue: { type: 'string' }, service: { type: 'string' } } },
    },
  },
};

/** `GET /engines`. */
export const engineList: JsonSchema = {
  type: 'object',
  required: ['items'],
  properties: { items: { type: 'array', items: engineInfo } },
};

const countsBy = (what: string): JsonSchema => ({
  type: 'object',
  description: `counts by ${what}`,
  additionalProperties: count,
});

/** `GET /overview`. */
export const overviewBody: JsonSchema = {
  type: 'object',
  required: ['session', 'jobs', 'batches', 'queues', 'collectionsHeld', 'engines'],
  properties: {
    session: { type: 'string', description: "this server's ZooKeeper session state" },
    jobs: countsBy('job state'),
    batches: countsBy('batch status (invalid: unreadable)'),
    accessRequests: countsBy('access queue'),
    queues: {
      type: 'array',
      items: { type: 'object', properties: { name: { type: 'string' }, paused: { type: 'boolean' } } },
    },
    collectionsHeld: stringList,
    engines: { type: 'array', items: engineInfo },
  },
};

/** `GET /machines/:lifecycle/diagram`. */
export const lifecycleParams: JsonSchema = {
  type: 'object',
  required: ['lifecycle'],
  properties: { lifecycle: { type: 'string', enum: LIFECYCLE_NAMES } },
};

const stateList = (item: JsonSchema): JsonSchema => ({
  type: 'object',
  required: ['states'],
  properties: { states: { type: 'array', items: item } },
});
const namedState = {
  type: 'object',
  required: ['state', 'wire', 'final', 'category'],
  properties: {
    state: { type: 'string' },
    wire: { type: 'string', description: 'the status name ZooKeeper stores' },
    final: { type: 'boolean', description: 'no edge leaves it' },
    category: {
      type: 'string',
      enum: ['wait', 'work', 'ok', 'bad', 'gone'],
      description: 'how it is coloured: waiting, working, done, failed or gone',
    },
  },
};

/** `GET /lifecycle` (see src/http/lifecycles.ts). */
export const lifecycleBody: JsonSchema = {
  type: 'object',
  required: ['job', 'batch', 'access'],
  properties: {
    job: {
      type: 'object',
      required: ['initial', 'states'],
      properties: {
        initial: { type: 'string', description: 'the state a job is created in' },
        states: {
          type: 'array',
          items: {
            type: 'object',
            required: ['state', 'wire', 'final', 'category', 'folder', 'working'],
            properties: {
              ...namedState.properties,
              folder: { type: 'string', description: 'the folder of its refs under /jobs/states' },
              working: { type: 'boolean', description: 'a step runs in it' },
              step: { type: 'string', description: 'the step it runs' },
            },
          },
        },
      },
    },
    batch: stateList(namedState),
    access: stateList(namedState),
  },
};

/** `GET /batches/:id/timeline` (see src/http/dashboard/timeline.ts). */
export const timelineBody: JsonSchema = {
  type: 'object',
  required: ['bid', 'note', 'entries'],
  properties: {
    bid: { type: 'string' },
    note: { type: 'string' },
    entries: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          ...{ at: { type: 'string' }, item: { type: 'string' }, id: { type: 'string' } },
          ...{ what: { type: 'string' }, state: { type: 'string' }, label: { type: 'string' } },
          source: { type: 'string', description: 'the stored field the time comes from' },
        },
      },
    },
    unreadable: { ...count, description: 'timestamps that could not be read (left out)' },
    jobs: { type: 'object', properties: { read: count, total: count } },
  },
};

/** `POST /jobs/bulk/:action`: which action. */
export const bulkParams = (actions: readonly string[]): JsonSchema => ({
  type: 'object',
  required: ['action'],
  properties: { action: { type: 'string', enum: [...actions] } },
});

/**
 * `POST /jobs/bulk/:action`: the filter (at least one key; every key given must match) and
 * whether to act. The states are those of the lifecycle the queue runs, as in {@link jobQuery}.
 */
export const bulkBody = (lifecycle: Pick<JobLifecycle, 'states'>): JsonSchema => ({
  type: 'object',
  additionalProperties: false,
  properties: {
    batch: text(30, { pattern: '^bid[0-9]+$' }),
    collection: text(100, { description: "the job configuration's collection" }),
    profile: text(100, { description: "the job configuration's profile_name" }),
    state: {
      type: 'string',
      enum: [...lifecycle.states],
      description: 'default: every state the lifecycle allows the action from',
    },
    dryRun: {
      type: 'boolean',
      description: 'true (the default): only say what would happen; false: do it',
    },
    reason: text(500, { description: 'why (in the audit log; required to delete for real)' }),
  },
});

/** The body of a bulk action (see {@link bulkBody}). */
export interface BulkBody {
  batch?: string;
  collection?: string;
  profile?: string;
  state?: string;
  dryRun?: boolean;
  reason?: string;
}

const bulkItem: JsonSchema = {
  type: 'object',
  required: ['jid', 'outcome'],
  properties: {
    ...{ jid: { type: 'string' }, bid: { type: 'string' }, from: { type: 'string' } },
    outcome: { type: 'string', enum: ['would', 'done', 'refused'] },
    to: { type: 'string', description: 'would or done: the state after' },
    error: { type: 'string', description: 'refused: the stable code (INVALID_TRANSITION, LOCK_HELD…)' },
    message: { type: 'string', description: 'refused: why' },
  },
};

/** `POST /jobs/bulk/:action` answers (see src/admin/bulk/outcome.ts). */
export const bulkReport: JsonSchema = {
  type: 'object',
  required: ['action', 'dryRun', 'filter', 'states', 'counts', 'refusedBy', 'items', 'truncated'],
  properties: {
    ...{ action: { type: 'string' }, dryRun: { type: 'boolean' } },
    filter: {
      type: 'object',
      properties: {
        ...{ batch: { type: 'string' }, collection: { type: 'string' } },
        ...{ profile: { type: 'string' }, state: { type: 'string' } },
      },
    },
    states: { ...stringList, description: 'the job states looked at' },
    counts: {
      type: 'object',
      properties: { matched: count, would: count, done: count, refused: count, unreadable: count },
    },
    refusedBy: countsBy('refusal code'),
    items: {
      type: 'array',
      items: bulkItem,
      description: 'refused first, then the others, by jid; at most 1,000 (the counts cover all)',
    },
    truncated: { type: 'boolean', description: 'more items than listed' },
  },
};

/** `GET /search`. */
export const searchQuery: JsonSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['q'],
  properties: {
    q: text(500, { description: 'a jid, bid, batch uuid, ARK, local id or the start of a title' }),
    limit: { type: 'string', pattern: '^(?:[1-9][0-9]?|100)$', description: '1-100 (default 20)' },
  },
};

/** `GET /search` answers (see src/views/search/search.ts). */
export const searchResult: JsonSchema = {
  type: 'object',
  required: ['query', 'items', 'total', 'truncated'],
  properties: {
    ...{ query: { type: 'string' }, total: count, truncated: { type: 'boolean' } },
    items: {
      type: 'array',
      items: {
        type: 'object',
        required: ['kind', 'id', 'match', 'value'],
        properties: {
          ...{ kind: { type: 'string', enum: ['batch', 'job'] }, id: { type: 'string' } },
          ...{ bid: { type: 'string' }, title: { type: 'string' }, status: { type: 'string' } },
          match: { type: 'string', enum: ['jid', 'bid', 'uuid', 'ark', 'localId', 'title'] },
          value: { type: 'string', description: 'the stored value that matched' },
        },
      },
    },
    index: {
      type: 'object',
      description: 'the in-memory index ARK, local id and title matches come from (docs/http.md)',
      properties: {
        ...{ jobs: count, batches: count, refreshedAt: { type: 'string' } },
        ...{ lastRead: count, lastRefreshMs: count },
      },
    },
  },
};
