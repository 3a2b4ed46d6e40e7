/** An event id of `/events`: the subscription it belongs to and the event's number in this process. */
export interface EventId {
  epoch: string;
  n: number;
}

/** `<epoch>-<n>`, as written on the `id:` line of a frame. */
export const eventId = (epoch: string, n: number): string => `${epoch}-${n}`;

/** The id a client sent back (`Last-Event-ID`), or undefined when it is not one of ours. */
export function parseEventId(text: string): EventId | undefined {
  const match = /^([0-9a-f]{1,32})-(\d{1,15})$/.exec(text.trim());
  return match ? { epoch: match[1]!, n: Number(match[2]) } : undefined;
}
