#!/usr/bin/python3
"""Numbered UDP datagrams across a link, to see which were lost and in what runs.

  udp_sequence.py receive --port P --count N --ready FILE --out FILE [--quiet-s S]
  udp_sequence.py send --to ADDR --port P --count N [--batch B] [--gap-ms G]

The receiver writes FILE --ready once bound, then records each sequence number it gets
until S seconds pass without one (after the first), and writes to --out a JSON object:
packets sent (N), received, lost, and the loss runs by length ({"1": 240, "2": 180, ...}),
counting only gaps that end in a received packet (a run cut off by the end is unfinished).
The sender paces itself in batches (B datagrams, then G ms), so that no queue on the way
drops anything the link's loss model did not.
"""
import argparse
import json
import socket
import struct
import time


def receive(args):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    # Room for a few thousand datagrams, should this process be descheduled a while.
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    sock.bind(("0.0.0.0", args.port))
    with open(args.ready, "w") as f:
        f.write("ready\n")
    got = bytearray(args.count)
    received = 0
    sock.settimeout(args.quiet_s * 10)  # the first datagram may take a while to come
    while True:
        try:
            data = sock.recv(64)
        except socket.timeout:
            break
        sock.settimeout(args.quiet_s)
        if len(data) < 4:
            continue
        (seq,) = struct.unpack("!I", data[:4])
        if seq < args.count and not got[seq]:
            got[seq] = 1
            received += 1
    runs = {}
    run = 0
    for seq in range(args.count):
        if got[seq]:
            if run:
                runs[str(run)] = runs.get(str(run), 0) + 1
            run = 0
        else:
            run += 1
    with open(args.out, "w") as f:
        json.dump({"sent": args.count, "received": received,
                   "lost": args.count - received, "runs": runs}, f)


def send(args):
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    payload = b"\0" * 60
    for start in range(0, args.count, args.batch):
        for seq in range(start, min(start + args.batch, args.count)):
            sock.sendto(struct.pack("!I", seq) + payload, (args.to, args.port))
        time.sleep(args.gap_ms / 1000)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("mode", choices=["receive", "send"])
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--count", type=int, required=True)
    p.add_argument("--to")
    p.add_argument("--ready")
    p.add_argument("--out")
    p.add_argument("--quiet-s", type=float, default=3)
    p.add_argument("--batch", type=int, default=50)
    p.add_argument("--gap-ms", type=float, default=2.5)
    args = p.parse_args()
    receive(args) if args.mode == "receive" else send(args)


if __name__ == "__main__":
    main()
