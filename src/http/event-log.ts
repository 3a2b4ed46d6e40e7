/**
 * The frames of `/events` not yet taken by every client, kept once for all of them: a client is
 * a position in it. Pieces are appended as the fanout makes them and dropped from the front once
 * every client has written them, so what the log holds is bounded by its slowest client, which
 * is disconnected once it is a set number of bytes behind (see EventClient).
 */
export class EventLog {
  private readonly pieces: string[] = [];
  /** Byte offset, since the log began, of the end of each piece in `pieces`. */
  private readonly ends: number[] = [];
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

  append(piece: string): void {
    if (piece === '') return;
    this.total += Buffer.byteLength(piece);
    this.pieces.push(piece);
    this.ends.push(this.total);
  }

  /** The piece numbered `seq` (between the oldest kept and `head`). */
  piece(seq: number): string {
    return this.pieces[this.indexOf(seq)]!;
  }

  /** Byte offset of the start of piece `seq` (`endOffset` for `head`). */
  offsetOf(seq: number): number {
    return seq === this.firstSeq ? this.startOffset : this.ends[this.indexOf(seq) - 1]!;
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
      this.pieces.splice(0, this.start);
      this.ends.splice(0, this.start);
      this.start = 0;
    }
  }

  private indexOf(seq: number): number {
    if (seq < this.firstSeq || seq > this.head)
      throw new RangeError(`piece ${seq} is not in the log (${this.firstSeq}..${this.head})`);
    return this.start + seq - this.firstSeq;
  }
}
