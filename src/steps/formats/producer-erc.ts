import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Erc } from '../ingest-contracts.js';
import { splitLocalIds } from './local-ids.js';

/**
 * The depositor's own `mrt-erc.txt` among the object's files (a container's, or a manifest
 * component: Merritt's Ruby client always sends one), read and applied as mrt-ingest does
 * (`MetadataUtil.readMetadataANVL`, `HandlerMinter.updateMetadata`): its who, what and when
 * override the form's and the manifest's; a `where` holding an ark is the primary id, any other
 * `where` the local ids, added before the ids the job already had.
 */

/** Where the depositor's ERC is, relative to the job's working directory. */
export const PRODUCER_ERC_FILE = 'producer/mrt-erc.txt';

/** ERC's "unassigned": never a value. */
const UNASSIGNED = '(:unas)';

/** What an `mrt-erc.txt` says, by mrt-ingest's keys. */
export interface ProducerErc {
  who?: string;
  what?: string;
  when?: string;
  /** The first `where` holding an `ark:/`. */
  primary?: string;
  /** The last other `where` (later lines replace earlier ones, as in mrt-ingest's map). */
  local?: string;
}

const KERNEL = /^(?:who|what|when|where)/;

/**
 * Reads ANVL lines as mrt-ingest does: a line starting `who`, `what`, `when` or `where` and
 * holding a `:` is a key (up to the first `:`) and a value; every other line is ignored (no
 * continuation lines, no `erc:`); an empty value, or `(:unas)`, says nothing.
 */
export function parseProducerErc(text: string): ProducerErc {
  const erc: ProducerErc = {};
  for (const line of text.replace(/^\uFEFF/, '').split(/\r\n|\r|\n/)) {
    const colon = line.indexOf(':');
    if (colon < 0 || !KERNEL.test(line)) continue;
    const key = line.slice(0, colon);
    const value = line.slice(colon + 1).trim();
    if (value === '' || value === UNASSIGNED) continue;
    if (key === 'who' || key === 'what' || key === 'when') erc[key] = value;
    else if (key !== 'where' || value.includes(UNASSIGNED)) continue;
    else if (value.includes('ark:/') && erc.primary === undefined) erc.primary = value;
    else erc.local = value;
  }
  return erc;
}

/** The object's description after the depositor's ERC is applied. */
export interface DescribedObject {
  erc: Erc;
  primaryId?: string;
  localIds: string[];
}

/** Applies a producer ERC over what the form and the manifest said. */
export function applyProducerErc(given: DescribedObject, producer: ProducerErc): DescribedObject {
  const erc: Erc = { ...given.erc };
  if (producer.who) erc.who = producer.who;
  if (producer.what) erc.what = producer.what;
  if (producer.when) erc.when = producer.when;
  const localIds = producer.local ? splitLocalIds([producer.local, ...given.localIds]) : given.localIds;
  const primaryId = producer.primary ?? given.primaryId;
  return { erc, localIds, ...(primaryId === undefined ? {} : { primaryId }) };
}

/** The producer ERC of a working directory, or undefined when the object has none. */
export async function readProducerErc(workDir: string): Promise<ProducerErc | undefined> {
  try {
    return parseProducerErc(await readFile(join(workDir, PRODUCER_ERC_FILE), 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}
