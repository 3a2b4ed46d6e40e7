/** jute's primitive encodings, written out by hand: what the codec tests compare the library with. */
export const juteByHand = {
  int: (n: number): Buffer => {
    const b = Buffer.alloc(4);
    b.writeInt32BE(n);
    return b;
  },
  bool: (v: boolean): Buffer => Buffer.from([v ? 1 : 0]),
  long: (n: bigint): Buffer => {
    const b = Buffer.alloc(8);
    b.writeBigInt64BE(n);
    return b;
  },
  string: (s: string): Buffer =>
    Buffer.concat([juteByHand.int(Buffer.byteLength(s)), Buffer.from(s, 'utf8')]),
  bytes: (b: Buffer): Buffer => Buffer.concat([juteByHand.int(b.length), b]),
  multiHeader: (type: number, done: boolean, err: number): Buffer =>
    Buffer.concat([juteByHand.int(type), juteByHand.bool(done), juteByHand.int(err)]),
};
