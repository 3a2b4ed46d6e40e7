import { jobChild, parseRefName } from '../../queue/tree/paths.js';
import { readJobConfiguration } from '../../queue/tree/merritt-ingest-keys.js';
import type { ZkClient } from '../../zk/index.js';
import { keyFieldsOf, type KeyFields } from './policy.js';

/** Configurations read per request (one multiRead): well under ZooKeeper's 1 MB packet. */
const CHUNK = 200;
/** Jobs whose key is remembered; the longest-known are forgotten past it. */
const REMEMBERED = 200_000;
/** Unknown jobs looked up per arrangement: the rest are learnt at the next ones. */
export const LOOKUPS_PER_ARRANGE = 2_000;

/**
 * What each waiting job can be keyed by (its collection, profile, submitter), read from its
 * configuration once and remembered (a job's configuration never changes): a consumer arranging a
 * folder's refs fairly reads the keys of the refs it has not met, a few hundred per request.
 */
export class JobKeys {
  private readonly fields = new Map<string, KeyFields>();
  /** The highest job id met: a ref above it is a job created since (new work, looked up first). */
  private highest = '';

  constructor(private readonly zk: ZkClient) {}

  get(jid: string): KeyFields | undefined {
    return this.fields.get(jid);
  }

  has(jid: string): boolean {
    return this.fields.has(jid);
  }

  /** Whether a ref names a job created after every job met so far. */
  isNew(jid: string): boolean {
    return jid.length > this.highest.length || (jid.length === this.highest.length && jid > this.highest);
  }

  /** A job's fields, known without a read (it was loaded anyway). */
  note(jid: string, fields: KeyFields): void {
    if (this.isNew(jid)) this.highest = jid;
    this.fields.set(jid, fields);
    if (this.fields.size > REMEMBERED) this.fields.delete(this.fields.keys().next().value as string);
  }

  /**
   * Reads the keys of refs among `refs` not known yet: every new job, and the first
   * {@link LOOKUPS_PER_ARRANGE} others in order. A job whose configuration cannot be read is
   * remembered without fields (its key is `(none)`): it is not read again at every arrangement.
   */
  async learn(refs: readonly string[]): Promise<void> {
    const wanted: string[] = [];
    let others = 0;
    for (const ref of refs) {
      const jid = parseRefName(ref)?.jid;
      if (jid === undefined || this.fields.has(jid)) continue;
      if (this.isNew(jid)) wanted.push(jid);
      else if (others < LOOKUPS_PER_ARRANGE) {
        others++;
        wanted.push(jid);
      }
    }
    for (let i = 0; i < wanted.length; i += CHUNK) {
      const chunk = wanted.slice(i, i + CHUNK);
      const nodes = await this.zk.getDataMany(chunk.map((jid) => jobChild(jid, 'configuration')));
      chunk.forEach((jid, j) => this.note(jid, decode(nodes[j]?.data)));
    }
  }
}

function decode(data: Buffer | undefined): KeyFields {
  if (!data) return {};
  try {
    return keyFieldsOf(readJobConfiguration(JSON.parse(data.toString('utf8')) as Record<string, unknown>));
  } catch {
    return {};
  }
}
