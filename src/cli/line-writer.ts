import { once } from 'node:events';

/** Lines gathered before one write: few system calls, a bounded buffer. */
const CHUNK_BYTES = 64 * 1024;

/** Writes lines to a stream as they come, in chunks, waiting when the reader is slower. */
export interface LineWriter {
  line(text: string): Promise<void>;
  /** Writes what is gathered; call once at the end. */
  flush(): Promise<void>;
}

/**
 * A {@link LineWriter} over `out`. Output of a long listing starts at once and its memory stays
 * bounded: a full stream (`write` answering false) is waited for (`drain`), never queued up.
 */
export function lineWriter(out: NodeJS.WritableStream): LineWriter {
  let buffer = '';
  const write = async (): Promise<void> => {
    const text = buffer;
    buffer = '';
    if (text !== '' && !out.write(text)) await once(out, 'drain');
  };
  return {
    async line(text) {
      buffer += `${text}\n`;
      if (buffer.length >= CHUNK_BYTES) await write();
    },
    flush: write,
  };
}
