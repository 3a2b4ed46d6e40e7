"""
A userspace stand-in for `tc qdisc ... netem`, for kernels built without sch_netem.

Creates two TUN devices (point-to-point IP links) in the network namespace it runs in and
copies IP packets between them, dropping and delaying each direction as told. The caller moves
one device into another namespace and gives both addresses: the pair is then a link like a veth
pair, with netem's `loss P% delay Dms` on each direction.

    python3 netem-relay.py DEV_A DEV_B

stdin, one command a line:
    set LOSS_A_TO_B DELAY_A_TO_B LOSS_B_TO_A DELAY_B_TO_A   (percent, milliseconds)
    stats                                                    (prints "stats PASSED DROPPED")
stdout: "ready" once both devices exist; "ok" after each `set`.
The devices go when the relay exits, which it does when stdin closes (its parent is gone).
"""

import collections
import fcntl
import os
import random
import select
import struct
import sys
import time

TUNSETIFF = 0x400454CA
IFF_TUN = 0x0001
IFF_NO_PI = 0x1000


def open_tun(name: str) -> int:
    fd = os.open("/dev/net/tun", os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack("16sH", name.encode(), IFF_TUN | IFF_NO_PI))
    return fd


def main() -> None:
    a = open_tun(sys.argv[1])
    b = open_tun(sys.argv[2])
    # direction -> [loss fraction, delay seconds]
    rules = {a: [0.0, 0.0], b: [0.0, 0.0]}
    other = {a: b, b: a}
    queues = {a: collections.deque(), b: collections.deque()}
    passed = 0
    dropped = 0
    stdin = sys.stdin.fileno()
    pending = b""
    print("ready", flush=True)
    while True:
        now = time.monotonic()
        due = [q[0][0] for q in queues.values() if q]
        timeout = max(0.0, min(due) - now) if due else None
        readable, _, _ = select.select([a, b, stdin], [], [], timeout)
        for fd in readable:
            if fd == stdin:
                chunk = os.read(stdin, 4096)
                if not chunk:
                    return
                pending += chunk
                while b"\n" in pending:
                    line, pending = pending.split(b"\n", 1)
                    words = line.decode().split()
                    if words[:1] == ["set"] and len(words) == 5:
                        rules[a] = [float(words[1]) / 100, float(words[2]) / 1000]
                        rules[b] = [float(words[3]) / 100, float(words[4]) / 1000]
                        print("ok", flush=True)
                    elif words[:1] == ["stats"]:
                        print(f"stats {passed} {dropped}", flush=True)
                continue
            # Everything the device holds now, one packet a read.
            for _ in range(256):
                try:
                    packet = os.read(fd, 65536)
                except BlockingIOError:
                    break
                loss, delay = rules[fd]
                if loss > 0 and random.random() < loss:
                    dropped += 1
                    continue
                queues[fd].append((time.monotonic() + delay, packet))
        now = time.monotonic()
        for fd, queue in queues.items():
            while queue and queue[0][0] <= now:
                _, packet = queue.popleft()
                try:
                    os.write(other[fd], packet)
                    passed += 1
                except OSError:
                    # The other device is down (a link cut): the packet is lost, as on a wire.
                    dropped += 1


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
