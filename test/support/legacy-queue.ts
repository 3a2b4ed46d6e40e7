/**
 * Records of Merritt's pre-2024 ingest queue, in the byte format cdl-zk-queue's `Item` writes:
 * 1 status byte (0 Pending, 1 Consumed, 2 Deleted, 3 Failed, 4 Completed, 5 Held), the time as a
 * big-endian Java long of milliseconds, then the payload. The payloads below are real Java
 * serializations of `java.util.Properties` (what mrt-ingest's `HandlerSubmit` queued with
 * `ObjectOutputStream.writeObject`), made by OpenJDK 17 from this program:
 *
 *     Properties p = new Properties();
 *     for (String kv : spec.split(";")) { String[] x = kv.split("=", 2);
 *       if (x[0].equals("update")) p.put("update", Boolean.valueOf(x[1])); else p.put(x[0], x[1]); }
 *     ObjectOutputStream oos = new ObjectOutputStream(bos); oos.writeObject(p); oos.close();
 *
 * with the property sets in `LEGACY_PROPERTIES`.
 */

export const LEGACY_STATUS = {
  Pending: 0,
  Consumed: 1,
  Deleted: 2,
  Failed: 3,
  Completed: 4,
  Held: 5,
} as const;

/** The property sets the serialized payloads hold. */
export const LEGACY_PROPERTIES = {
  BATCH1_JOB1: {
    batchID: 'bid-11111111-aaaa-4aaa-8aaa-000000000001',
    jobID: 'jid-11111111-0000-4000-8000-000000000001',
    profile: 'legacy_profile',
    type: 'object-manifest',
    submitter: 'jdoe/Jane Doe',
    queuePriority: '03',
    filename: 'object1.checkm',
    title: 'Legacy one',
    creator: 'Doe, Jane',
    localID: 'legacy-local-1',
    responseForm: 'xml',
    update: 'false',
  },
  BATCH1_JOB2: {
    batchID: 'bid-11111111-aaaa-4aaa-8aaa-000000000001',
    jobID: 'jid-11111111-0000-4000-8000-000000000002',
    profile: 'legacy_profile',
    type: 'file',
    submitter: 'jdoe/Jane Doe',
    queuePriority: '03',
    filename: 'data.bin',
    digestType: 'md5',
    digestValue: '0cc175b9c0f1b6a831c399e269772661',
    update: 'false',
  },
  BATCH2_JOB3: {
    batchID: 'bid-22222222-bbbb-4bbb-8bbb-000000000002',
    jobID: 'jid-22222222-0000-4000-8000-000000000003',
    profile: 'legacy_profile',
    type: 'object-manifest',
    submitter: 'ops',
    queuePriority: '00',
    filename: 'https://example.org/deposit/object3.checkm',
    objectID: 'ark:/99999/fk4legacy3',
    update: 'true',
  },
} as const;

/** Base64 of the Java serializations of `LEGACY_PROPERTIES`. */
export const SERIALIZED: Record<keyof typeof LEGACY_PROPERTIES, string> = {
  BATCH1_JOB1: [
    'rO0ABXNyABRqYXZhLnV0aWwuUHJvcGVydGllczkS0HpwNj6YAgABTAAIZGVmYXVsdHN0ABZMamF2YS91dGlsL1Byb3BlcnRp',
    'ZXM7eHIAE2phdmEudXRpbC5IYXNodGFibGUTuw8lIUrkuAMAAkYACmxvYWRGYWN0b3JJAAl0aHJlc2hvbGR4cD9AAAAAAAAO',
    'dwgAAAATAAAADHQACGZpbGVuYW1ldAAOb2JqZWN0MS5jaGVja210AAVqb2JJRHQAKGppZC0xMTExMTExMS0wMDAwLTQwMDAt',
    'ODAwMC0wMDAwMDAwMDAwMDF0AAdsb2NhbElEdAAObGVnYWN5LWxvY2FsLTF0AAV0aXRsZXQACkxlZ2FjeSBvbmV0AAR0eXBl',
    'dAAPb2JqZWN0LW1hbmlmZXN0dAAHYmF0Y2hJRHQAKGJpZC0xMTExMTExMS1hYWFhLTRhYWEtOGFhYS0wMDAwMDAwMDAwMDF0',
    'AAZ1cGRhdGVzcgARamF2YS5sYW5nLkJvb2xlYW7NIHKA1Zz67gIAAVoABXZhbHVleHAAdAAMcmVzcG9uc2VGb3JtdAADeG1s',
    'dAAHcHJvZmlsZXQADmxlZ2FjeV9wcm9maWxldAAHY3JlYXRvcnQACURvZSwgSmFuZXQADXF1ZXVlUHJpb3JpdHl0AAIwM3QA',
    'CXN1Ym1pdHRlcnQADWpkb2UvSmFuZSBEb2V4cA==',
  ].join(''),
  BATCH1_JOB2: [
    'rO0ABXNyABRqYXZhLnV0aWwuUHJvcGVydGllczkS0HpwNj6YAgABTAAIZGVmYXVsdHN0ABZMamF2YS91dGlsL1Byb3BlcnRp',
    'ZXM7eHIAE2phdmEudXRpbC5IYXNodGFibGUTuw8lIUrkuAMAAkYACmxvYWRGYWN0b3JJAAl0aHJlc2hvbGR4cD9AAAAAAAAL',
    'dwgAAAAPAAAACnQABHR5cGV0AARmaWxldAAHYmF0Y2hJRHQAKGJpZC0xMTExMTExMS1hYWFhLTRhYWEtOGFhYS0wMDAwMDAw',
    'MDAwMDF0AAZ1cGRhdGVzcgARamF2YS5sYW5nLkJvb2xlYW7NIHKA1Zz67gIAAVoABXZhbHVleHAAdAAHcHJvZmlsZXQADmxl',
    'Z2FjeV9wcm9maWxldAAKZGlnZXN0VHlwZXQAA21kNXQACGZpbGVuYW1ldAAIZGF0YS5iaW50AAtkaWdlc3RWYWx1ZXQAIDBj',
    'YzE3NWI5YzBmMWI2YTgzMWMzOTllMjY5NzcyNjYxdAANcXVldWVQcmlvcml0eXQAAjAzdAAJc3VibWl0dGVydAANamRvZS9K',
    'YW5lIERvZXQABWpvYklEdAAoamlkLTExMTExMTExLTAwMDAtNDAwMC04MDAwLTAwMDAwMDAwMDAwMnhw',
  ].join(''),
  BATCH2_JOB3: [
    'rO0ABXNyABRqYXZhLnV0aWwuUHJvcGVydGllczkS0HpwNj6YAgABTAAIZGVmYXVsdHN0ABZMamF2YS91dGlsL1Byb3BlcnRp',
    'ZXM7eHIAE2phdmEudXRpbC5IYXNodGFibGUTuw8lIUrkuAMAAkYACmxvYWRGYWN0b3JJAAl0aHJlc2hvbGR4cD9AAAAAAAAL',
    'dwgAAAAPAAAACXQACG9iamVjdElEdAAVYXJrOi85OTk5OS9mazRsZWdhY3kzdAAEdHlwZXQAD29iamVjdC1tYW5pZmVzdHQA',
    'B2JhdGNoSUR0AChiaWQtMjIyMjIyMjItYmJiYi00YmJiLThiYmItMDAwMDAwMDAwMDAydAAGdXBkYXRlc3IAEWphdmEubGFu',
    'Zy5Cb29sZWFuzSBygNWc+u4CAAFaAAV2YWx1ZXhwAXQAB3Byb2ZpbGV0AA5sZWdhY3lfcHJvZmlsZXQACGZpbGVuYW1ldAAq',
    'aHR0cHM6Ly9leGFtcGxlLm9yZy9kZXBvc2l0L29iamVjdDMuY2hlY2ttdAANcXVldWVQcmlvcml0eXQAAjAwdAAJc3VibWl0',
    'dGVydAADb3BzdAAFam9iSUR0AChqaWQtMjIyMjIyMjItMDAwMC00MDAwLTgwMDAtMDAwMDAwMDAwMDAzeHA=',
  ].join(''),
};

/** A legacy node's bytes: the 9-byte header, then `payload`. */
export function legacyNodeData(status: number, time: Date, payload: Buffer): Buffer {
  const header = Buffer.alloc(9);
  header.writeUInt8(status, 0);
  header.writeBigInt64BE(BigInt(time.getTime()), 1);
  return Buffer.concat([header, payload]);
}

/** The serialized payload of one property set. */
export const serialized = (name: keyof typeof SERIALIZED): Buffer => Buffer.from(SERIALIZED[name], 'base64');
