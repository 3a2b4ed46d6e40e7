/**
 * The longest reply Merritt's Java readers accept by default: ZooKeeper's Java client refuses a
 * packet of `jute.maxbuffer` bytes or more, 0xfffff (1 MiB - 1) unless the JVM sets it. A
 * `getChildren` of a folder whose child list is longer fails there (about 52,000 job refs).
 * A module of its own, importing nothing, so the configuration can name it as a default.
 */
export const JAVA_CHILD_LIST_BYTES = 0xfffff;
