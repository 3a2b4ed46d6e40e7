/** Session ids as ZkStat.ephemeralOwner writes them: lowercase hex, no `0x`, no leading zeros. */
export function normaliseSessionId(id: string): string {
  return id
    .trim()
    .toLowerCase()
    .replace(/^0x/, '')
    .replace(/^0+(?=.)/, '');
}
