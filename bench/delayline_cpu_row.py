#!/usr/bin/env python3
"""One row of bench/delayline-cpu.sh, or (--summary ROWS) the medians per build and flows
and the new/old ratios.

A row: build flows Mbit/s packets cpu_s us_per_packet lateness_p99_ms
emulator_lateness_p99_ms ping_rtt_ms. Lateness comes from the delay lines' histograms
(netns/lateness_histogram.h): bucket b holds lateness below 2^((b + 1) / 4) microseconds;
a percentile is its bucket's upper edge, as the controller reads it. The whole lateness
holds the host's stalls; the emulator's is what is left without them (what health
judges). The RTT is ping's on the idle link after the flows (2 x 30 ms configured)."""
import json
import math
import statistics
import sys


def histogram(path, which="lateness"):
    """The sum over a stats file's queues of their `which` buckets (lateness, emulator)."""
    counts = {}
    for line in open(path):
        words = line.split()
        if which not in words:
            continue
        start = words.index(which) + 1
        end = words.index("emulator") if which == "lateness" else len(words)
        for item in words[start:end]:
            key, value = item.split(":")
            if key != "max":
                counts[int(key)] = counts.get(int(key), 0) + int(value)
    return counts


def percentile(counts, q):
    n = sum(counts.values())
    if n == 0:
        return 0.0
    rank, seen = math.ceil(q * n), 0
    for b in sorted(counts):
        seen += counts[b]
        if seen >= rank:
            return (math.ceil(2 ** ((b + 1) / 4) - 1) - 1) / 1000
    return 0.0


def row(argv):
    build, flows, iperf, c0, c1, p0, p1, hz, before, after, rtt = argv
    end = json.load(open(iperf))["end"]
    mbit = end["sum_received"]["bits_per_second"] / 1e6
    packets = int(p1) - int(p0)
    cpu = (float(c1) - float(c0)) / float(hz)
    def during(which):
        a, b = histogram(after, which), histogram(before, which)
        return {k: a[k] - b.get(k, 0) for k in a if a[k] > b.get(k, 0)}
    print("%s %s %.1f %d %.2f %.1f %.3f %.3f %.2f" % (
        build, flows, mbit, packets, cpu, 1e6 * cpu / max(packets, 1),
        percentile(during("lateness"), 0.99), percentile(during("emulator"), 0.99), float(rtt)))


def summary(path):
    rows = [l.split() for l in open(path) if l.strip()]
    cols = ["Mbit/s", "packets", "CPU s", "us/packet", "late p99 ms", "emu p99 ms", "ping ms"]
    print("%-5s %5s " % ("build", "flows") + " ".join("%11s" % c for c in cols)
          + "   (medians of %d rounds)" % (len(rows) // 4))
    med = {}
    for build in ("old", "new"):
        for flows in ("1", "8"):
            sel = [r for r in rows if r[0] == build and r[1] == flows]
            med[build, flows] = [statistics.median(float(r[i]) for r in sel) for i in range(2, 9)]
            print("%-5s %5s " % (build, flows) + " ".join("%11.3f" % v for v in med[build, flows]))
    for flows in ("1", "8"):
        o, n = med["old", flows], med["new", flows]
        print("new/old, %s flow(s): CPU per packet %.2f, goodput %.3f, lateness p99 %+.3f ms, "
              "the emulator's %+.3f ms, ping %+.2f ms" % (
                  flows, n[3] / o[3], n[0] / o[0], n[4] - o[4], n[5] - o[5], n[6] - o[6]))


if __name__ == "__main__":
    if sys.argv[1] == "--summary":
        summary(sys.argv[2])
    else:
        row(sys.argv[1:])
