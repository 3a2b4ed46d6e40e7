import { Socket } from 'node:net';

/**
 * The length of a `getChildren` reply as ZooKeeper sends it (the 4-byte length prefix's value:
 * what the Java client compares with jute.maxbuffer), read over a socket of our own speaking the
 * wire protocol directly: a ConnectRequest, then a GetChildrenRequest (opcode 8) for `path`. Takes
 * a connect string's first `host:port` and its chroot, as the Java client would.
 */
export async function childListReplyLength(connectString: string, path: string): Promise<number> {
  const [hosts, ...chrootParts] = connectString.split('/');
  const [host, port] = (hosts as string).split(',')[0]!.split(':');
  const chroot = chrootParts.length > 0 ? `/${chrootParts.join('/')}` : '';
  const full = path === '/' ? chroot || '/' : `${chroot}${path}`;
  const socket = new Socket();
  const replies: Buffer[] = [];
  let pending = Buffer.alloc(0);
  let wake: (() => void) | undefined;
  socket.on('data', (chunk: Buffer) => {
    pending = Buffer.concat([pending, chunk]);
    while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
      const length = pending.readInt32BE(0);
      replies.push(pending.subarray(0, 4 + length));
      pending = pending.subarray(4 + length);
    }
    wake?.();
  });
  const next = async (): Promise<Buffer> => {
    while (replies.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    return replies.shift()!;
  };
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.connect(Number(port), host as string, resolve);
  });
  try {
    // ConnectRequest: protocolVersion, lastZxidSeen, timeOut, sessionId, passwd (16 zero bytes).
    const connect = Buffer.alloc(4 + 4 + 8 + 4 + 8 + 4 + 16);
    let at = 4;
    at = connect.writeInt32BE(0, at);
    at = connect.writeBigInt64BE(0n, at);
    at = connect.writeInt32BE(10_000, at);
    at = connect.writeBigInt64BE(0n, at);
    at = connect.writeInt32BE(16, at);
    connect.writeInt32BE(connect.length - 4, 0);
    socket.write(connect);
    await next();
    // RequestHeader (xid 1, type 8 = getChildren), path (ustring), watch false.
    const name = Buffer.from(full, 'utf8');
    const request = Buffer.alloc(4 + 4 + 4 + 4 + name.length + 1);
    at = 4;
    at = request.writeInt32BE(1, at);
    at = request.writeInt32BE(8, at);
    at = request.writeInt32BE(name.length, at);
    at += name.copy(request, at);
    request.writeUInt8(0, at);
    request.writeInt32BE(request.length - 4, 0);
    socket.write(request);
    const reply = await next();
    const err = reply.readInt32BE(4 + 4 + 8);
    if (err !== 0) throw new Error(`getChildren ${full} answered error ${err}`);
    return reply.readInt32BE(0);
  } finally {
    socket.destroy();
  }
}
