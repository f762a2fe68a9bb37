#!/usr/bin/python3
"""A hostile process inside a node: 40 TCP connections to an agent's port (7100), each a
ZMTP 3.0 greeting (the NULL mechanism, as a client), the NULL mechanism READY command as a
DEALER, 1-20 random multipart messages and 1-4096 random bytes. Without the run's secret,
an agent that accepted the handshake would take these as messages of the run. A connection
the agent closes first is fine. Used by bench/hostile-peers.sh and the HostilePeers
integration test.

usage: zmtp_garbage.py HOST SEED
"""
import random, socket, struct, sys
host, seed = sys.argv[1], int(sys.argv[2])
rng = random.Random(seed)
greeting = b"\xff" + b"\0" * 8 + b"\x7f" + b"\x03\x00" + b"NULL".ljust(20, b"\0") + b"\0" * 32
# The NULL mechanism READY command, as a DEALER: a peer that completes the handshake.
ready_body = b"\x05READY" + b"\x0bSocket-Type" + struct.pack(">I", 6) + b"DEALER"
ready = b"\x04" + bytes([len(ready_body)]) + ready_body
def frames():
    n = rng.randint(1, 5)
    out = b""
    for i in range(n):
        body = bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 200)))
        out += bytes([1 if i + 1 < n else 0, len(body)]) + body
    return out
opened = []
for _ in range(40):
    try:
        s = socket.create_connection((host, 7100), timeout=5)
    except OSError:  # the agent is gone: its run ended (or died, before the fix)
        break
    try:
        s.sendall(greeting)
        s.recv(64)  # the agent greeting: it names its mechanism
        s.sendall(ready + b"".join(frames() for _ in range(rng.randint(1, 20))))
        s.sendall(bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 4096))))
    except OSError:
        pass
    opened.append(s)
for s in opened:
    s.close()
print("sent", len(opened))
