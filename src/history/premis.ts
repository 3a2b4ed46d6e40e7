import type { JobLifecycle } from '../../machines/index.js';
import { escapeXml } from '../steps/formats/erc.js';
import type { HistoryEntry } from './entry.js';

/**
 * A job's history as PREMIS 3 events (https://www.loc.gov/standards/premis/), for the object it
 * stored: message digest calculation and fixity check (the download, with the digests verified
 * against the depositor's and those computed), identifier assignment (the ark processing
 * minted), replication (to storage) and ingestion (the job completed). Event types are the
 * Library of Congress preservation vocabulary's. Steps are named by their lifecycle step, so a
 * lifecycle with other states needs nothing here (DESIGN.md §7).
 */

const PREMIS_NS = 'http://www.loc.gov/premis/v3';
const EVENT_TYPES = 'http://id.loc.gov/vocabulary/preservation/eventType/';

/** Type and vocabulary code of each PREMIS event written. */
const TYPES = {
  digest: ['message digest calculation', 'mes'],
  fixity: ['fixity check', 'fix'],
  identifier: ['identifier assignment', 'ida'],
  replication: ['replication', 'rep'],
  ingestion: ['ingestion', 'ing'],
} as const;
type PremisType = keyof typeof TYPES;

interface PremisEvent {
  id: string;
  type: PremisType;
  at: string;
  detail: string;
  outcome: 'success' | 'failure';
  outcomeDetail?: string;
  engine: string;
}

/** Counts of digests by algorithm, as the download step notes them. */
type DigestCounts = Readonly<Record<string, number>>;

const counts = (value: unknown): DigestCounts =>
  value && typeof value === 'object' ? (value as DigestCounts) : {};
const describeCounts = (byAlgorithm: DigestCounts): string =>
  Object.entries(byAlgorithm)
    .map(([algorithm, n]) => `${n} ${algorithm}`)
    .join(', ');
const total = (byAlgorithm: DigestCounts): number => Object.values(byAlgorithm).reduce((a, b) => a + b, 0);

/** The object's identifier: the ark its processing minted, when the history has it. */
export function objectIdentifierOf(entries: readonly HistoryEntry[]): string | undefined {
  for (const entry of entries) {
    const ids = entry.detail?.identifiers as { primary_id?: unknown } | undefined;
    if (typeof ids?.primary_id === 'string' && ids.primary_id !== '') return ids.primary_id;
  }
  return undefined;
}

function eventsOf(lifecycle: JobLifecycle, jid: string, entries: readonly HistoryEntry[]): PremisEvent[] {
  const events: PremisEvent[] = [];
  const add = (entry: HistoryEntry, type: PremisType, detail: string, failed: boolean): void => {
    events.push({
      id: `${jid}-${events.length + 1}`,
      type,
      at: entry.at,
      detail,
      outcome: failed ? 'failure' : 'success',
      ...(failed && entry.message ? { outcomeDetail: entry.message } : {}),
      engine: entry.engine,
    });
  };
  for (const entry of entries) {
    if (entry.outcome !== 'committed' || entry.to === undefined || entry.to === entry.state) continue;
    const failed = lifecycle.isFailed(entry.to);
    const step = lifecycle.stepOf(entry.state);
    const detail = entry.detail ?? {};
    if (step === 'download') {
      const verified = counts(detail.verified);
      const computed = counts(detail.computed);
      const files = typeof detail.files === 'number' ? detail.files : undefined;
      if (total(computed) > 0 || !failed)
        add(
          entry,
          'digest',
          `digests of ${files ?? total(computed) + total(verified)} files: ${describeCounts({ ...verified, ...computed }) || 'none'}`,
          failed,
        );
      if (total(verified) > 0 || failed)
        add(entry, 'fixity', `depositor's digests verified: ${describeCounts(verified) || 'none'}`, failed);
    } else if (step === 'process' && (detail.identifiers !== undefined || failed)) {
      const ids = detail.identifiers as { primary_id?: string; local_id?: string[] } | undefined;
      add(
        entry,
        'identifier',
        ids?.primary_id
          ? `assigned ${ids.primary_id}${ids.local_id?.length ? `; local ids ${ids.local_id.join(', ')}` : ''}`
          : 'identifier assignment',
        failed,
      );
    } else if (step === 'store') {
      add(
        entry,
        'replication',
        typeof detail.storage === 'string' ? `stored to ${detail.storage}` : 'stored to the storage service',
        failed,
      );
    }
    if (lifecycle.isFinal(entry.to) && !failed) add(entry, 'ingestion', `ingested: ${entry.to}`, false);
  }
  return events;
}

/** The PREMIS 3 document of a job's history (an intellectual entity and its events). */
export function premisOf(lifecycle: JobLifecycle, jid: string, entries: readonly HistoryEntry[]): string {
  const ark = objectIdentifierOf(entries);
  const objectId = ark ? { type: 'ARK', value: ark } : { type: 'local', value: jid };
  const events = eventsOf(lifecycle, jid, entries);
  const x = escapeXml;
  const eventXml = events.map(
    (e) => `  <premis:event>
    <premis:eventIdentifier><premis:eventIdentifierType>local</premis:eventIdentifierType><premis:eventIdentifierValue>${x(e.id)}</premis:eventIdentifierValue></premis:eventIdentifier>
    <premis:eventType authority="eventType" authorityURI="http://id.loc.gov/vocabulary/preservation/eventType" valueURI="${EVENT_TYPES}${TYPES[e.type][1]}">${TYPES[e.type][0]}</premis:eventType>
    <premis:eventDateTime>${x(e.at)}</premis:eventDateTime>
    <premis:eventDetailInformation><premis:eventDetail>${x(e.detail)}</premis:eventDetail></premis:eventDetailInformation>
    <premis:eventOutcomeInformation><premis:eventOutcome>${e.outcome}</premis:eventOutcome>${
      e.outcomeDetail
        ? `<premis:eventOutcomeDetail><premis:eventOutcomeDetailNote>${x(e.outcomeDetail)}</premis:eventOutcomeDetailNote></premis:eventOutcomeDetail>`
        : ''
    }</premis:eventOutcomeInformation>
    <premis:linkingAgentIdentifier><premis:linkingAgentIdentifierType>local</premis:linkingAgentIdentifierType><premis:linkingAgentIdentifierValue>${x(e.engine)}</premis:linkingAgentIdentifierValue><premis:linkingAgentRole>executing program</premis:linkingAgentRole></premis:linkingAgentIdentifier>
    <premis:linkingObjectIdentifier><premis:linkingObjectIdentifierType>${objectId.type}</premis:linkingObjectIdentifierType><premis:linkingObjectIdentifierValue>${x(objectId.value)}</premis:linkingObjectIdentifierValue></premis:linkingObjectIdentifier>
  </premis:event>`,
  );
  const agents = [...new Set(events.map((e) => e.engine))].map(
    (engine) => `  <premis:agent>
    <premis:agentIdentifier><premis:agentIdentifierType>local</premis:agentIdentifierType><premis:agentIdentifierValue>${x(engine)}</premis:agentIdentifierValue></premis:agentIdentifier>
    <premis:agentName>mrtq engine ${x(engine)}</premis:agentName>
    <premis:agentType>software</premis:agentType>
  </premis:agent>`,
  );
  return `<?xml version="1.0" encoding="UTF-8"?>
<premis:premis xmlns:premis="${PREMIS_NS}" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" version="3.0">
  <premis:object xsi:type="premis:intellectualEntity">
    <premis:objectIdentifier><premis:objectIdentifierType>${objectId.type}</premis:objectIdentifierType><premis:objectIdentifierValue>${x(objectId.value)}</premis:objectIdentifierValue></premis:objectIdentifier>
  </premis:object>
${[...eventXml, ...agents].join('\n')}
</premis:premis>
`;
}
