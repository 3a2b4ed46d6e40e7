/** Where event number `event` starts in the log: its piece, and its offset in that piece's text. */
export interface EventPosition {
  seq: number;
  offset: number;
}

/**
 * The frames of `/events`, kept once for all clients: a client is a position in it. Pieces are
 * appended as the fanout makes them (the frames of one turn of the event loop, joined) and
 * dropped from the front once every client has written them and they are older than what the
 * log keeps for clients that reconnect (see EventFanout). Each piece knows where each of its
 * events starts, so a client that comes back after event n resumes at event n + 1, inside a piece.
 */
export class EventLog {
  private readonly pieces: string[] = [];
  /** Byte offset, since the log began, of the end of each piece in `pieces`. */
  private readonly ends: number[] = [];
  /** Number of the first event of each piece, and where each of its events starts in it. */
  private readonly firstEvents: number[] = [];
  private readonly starts: number[][] = [];
  /** Sequence number of `pieces[start]`. */
  private firstSeq = 0;
  /** Index in `pieces` of the first piece still kept (compacted now and then, not per trim). */
  private start = 0;
  /** Byte offset of the start of `pieces[start]`. */
  private startOffset = 0;
  private total = 0;

  /** Sequence number the next piece will get: a client at `head` has written everything. */
  get head(): number {
    return this.firstSeq + this.pieces.length - this.start;
  }

  /** Bytes appended since the log began. */
  get endOffset(): number {
    return this.total;
  }

  /** Bytes the log holds now. */
  get heldBytes(): number {
    return this.total - this.startOffset;
  }

  /**
   * Appends `frames`, the events numbered `firstEvent`, `firstEvent + 1`…, as one piece (a frame
   * that is not an event, such as a comment, may be given with `firstEvent` past the last one).
   */
  append(frames: readonly string[], firstEvent: number): void {
    if (frames.length === 0) return;
    const starts: number[] = [];
    let at = 0;
    for (const frame of frames) {
      starts.push(at);
      at += frame.length;
    }
    const piece = frames.join('');
    this.total += Buffer.byteLength(piece);
    this.pieces.push(piece);
    this.ends.push(this.total);
    this.firstEvents.push(firstEvent);
    this.starts.push(starts);
  }

  /** The piece numbered `seq` (between the oldest kept and `head`). */
  piece(seq: number): string {
    return this.pieces[this.indexOf(seq)]!;
  }

  /** Byte offset of the start of piece `seq` (`endOffset` for `head`). */
  offsetOf(seq: number): number {
    return seq === this.firstSeq ? this.startOffset : this.ends[this.indexOf(seq) - 1]!;
  }

  /** Where event number `event` starts, if the log still holds it. */
  find(event: number): EventPosition | undefined {
    let low = this.start;
    let high = this.pieces.length - 1;
    // The last kept piece whose first event is at most `event`.
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (this.firstEvents[mid]! <= event) low = mid;
      else high = mid - 1;
    }
    if (low >= this.pieces.length || this.firstEvents[low]! > event) return undefined;
    const offset = this.starts[low]![event - this.firstEvents[low]!];
    return offset === undefined ? undefined : { seq: this.firstSeq + low - this.start, offset };
  }

  /** The first piece to keep for the log to hold at most `bytes` (`head` when it may hold none). */
  keepFrom(bytes: number): number {
    let seq = this.firstSeq;
    while (seq < this.head && this.total - this.offsetOf(seq) > bytes) seq++;
    return seq;
  }

  /** Drops the pieces before `seq`: every client is at `seq` or beyond. */
  trim(seq: number): void {
    const upTo = Math.min(seq, this.head);
    if (upTo <= this.firstSeq) return;
    this.startOffset = this.ends[this.indexOf(upTo) - 1]!;
    this.start = this.indexOf(upTo);
    this.firstSeq = upTo;
    // Compacted once half of the array is dropped pieces: amortised constant per piece.
    if (this.start > 1024 && this.start * 2 > this.pieces.length) {
      for (const list of [this.pieces, this.ends, this.firstEvents, this.starts]) list.splice(0, this.start);
      this.start = 0;
    }
  }

  private indexOf(seq: number): number {
    if (seq < this.firstSeq || seq > this.head)
      throw new RangeError(`piece ${seq} is not in the log (${this.firstSeq}..${this.head})`);
    return this.start + seq - this.firstSeq;
  }
}
