#!/usr/bin/env python3
"""The soak's sampler (bench/soak.sh): once a minute while the training run lives, the
resident memory and open files of every testbed process of the lab, by kind; the
timeline's changes that minute (applied, failed, their lag) from timeline.csv; and the
delay lines' release lateness that minute, the difference of two cumulative histograms
from `testbed status --json`. Prints a row a minute, then whether the soak held: no
kind of process grew (its memory's floor over the later minutes against the earlier,
its open files at the last minute against the second, the first being warm-up), no
change failed, and the run completed. Writes every row to OUT as JSON. TRAIN_PID 0: no
run, the lab alone for MINUTES (bench/flap-soak.sh). When the lab reroutes (reroutes.csv),
also the convergences: how many, routes replaced, compute and kernel milliseconds at p50
and p99.

usage: soak.py TESTBED LAB TRAIN_PID MINUTES OUT"""
import csv
import json
import math
import os
import subprocess
import sys
import time

tb, lab, train_pid, minutes, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
lab_dir = os.path.join(os.environ.get("TESTBED_RUN_DIR", "/run/testbed"), lab)
# Growth allowed: 10% and 4 MB of resident memory between the floors of the earlier and
# the later minutes (allocator arenas settle in steps of megabytes), 8 open files between
# the second minute and the last (sockets reconnecting).
RSS_SLACK, RSS_SLACK_MB, FD_SLACK = 0.10, 4.0, 8


def kind_of(pid):
    """The kind of a testbed process of this lab, or None."""
    try:
        argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")
        # A binary rebuilt while the soak runs reads "testbed (deleted)": still the lab's.
        exe = os.path.basename(os.readlink(f"/proc/{pid}/exe")).removesuffix(" (deleted)")
    except OSError:
        return None
    args = [a.decode(errors="replace") for a in argv if a]
    if exe == "testbed-agent":
        return "agents" if any(lab in a for a in args) else None
    if exe == "testbed-delayline":
        return "delay lines" if any(lab in a for a in args) else None
    if exe == "testbed" and len(args) > 2 and args[2] == lab:
        return {"train": "train", "_exporter": "exporter", "_timeline": "timeline"}.get(args[1])
    return None


def processes():
    kinds = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        kind = kind_of(int(name))
        if kind is None:
            continue
        try:
            rss_kb = next(int(l.split()[1]) for l in open(f"/proc/{name}/status") if l.startswith("VmRSS:"))
            fds = len(os.listdir(f"/proc/{name}/fd"))
        except (OSError, StopIteration):
            continue
        k = kinds.setdefault(kind, {"count": 0, "rss_mb": 0.0, "fds": 0})
        k["count"] += 1
        k["rss_mb"] += rss_kb / 1024
        k["fds"] += fds
    return kinds


def histogram(text):
    """{bucket: count} of a LatenessHistogram's format()."""
    h = {}
    for field in text.split():
        b, c = field.split(":")
        if b != "max":
            h[int(b)] = int(c)
    return h


def p99_ms(now, before):
    """The 99th percentile of the releases between two snapshots: the upper bound of the
    bucket holding it (lateness_histogram.cpp's upper_bound_us)."""
    d = {b: c - before.get(b, 0) for b, c in now.items() if c > before.get(b, 0)}
    total = sum(d.values())
    if total == 0:
        return 0.0
    seen = 0
    for b in sorted(d):
        seen += d[b]
        if seen >= math.ceil(0.99 * total):
            return (math.ceil(2 ** ((b + 1) / 4.0) - 1) - 1) / 1000
    return 0.0


def status():
    r = subprocess.run([tb, "status", lab, "--json"], capture_output=True, text=True)
    return json.loads(r.stdout) if r.returncode == 0 else {}


csv_offset = 0


def timeline_minute():
    """Changes logged since the last call: (applied, failed, p99 lag ms)."""
    global csv_offset
    lags, failed = [], 0
    try:
        with open(os.path.join(lab_dir, "timeline.csv")) as f:
            f.seek(csv_offset)
            for line in f:
                if not line[:1].isdigit():
                    continue
                # scheduled_s,applied_s,lag_ms,link,from,to,rate,delay,loss,"error",state
                fields = next(csv.reader([line]))
                lags.append(float(fields[2]))
                if len(fields) > 9 and fields[9]:
                    failed += 1
            csv_offset = f.tell()
    except OSError:
        pass
    lags.sort()
    return len(lags), failed, (lags[max(0, math.ceil(0.99 * len(lags)) - 1)] if lags else 0.0)


def alive(pid):
    if pid == 0:
        return True  # no run: the soak lasts its minutes
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except OSError:
        return False


rows = []
timeline_minute()  # what `up` logged before the run is not the soak's
before = histogram(status().get("delay_lines", {}).get("lateness_histogram", ""))
kinds_order = ["agents", "delay lines", "timeline", "exporter", "train"]
print(f"{'min':>3} " + " ".join(f"{k + ' MB':>14}" for k in kinds_order) +
      f" {'files':>6} {'changes':>8} {'failed':>6} {'lag p99 ms':>10} {'late p99 ms':>11}", flush=True)
start = time.monotonic()
for minute in range(1, minutes + 1):
    while time.monotonic() < start + 60 * minute and alive(train_pid):
        time.sleep(1)
    if not alive(train_pid):
        break
    kinds = processes()
    applied, failed, lag = timeline_minute()
    st = status()
    now = histogram(st.get("delay_lines", {}).get("lateness_histogram", ""))
    row = {"minute": minute, "kinds": kinds, "files": sum(k["fds"] for k in kinds.values()),
           "changes": applied, "failed": failed, "lag_p99_ms": lag, "lateness_p99_ms": p99_ms(now, before)}
    before = now
    rows.append(row)
    print(f"{minute:>3} " + " ".join(f"{kinds.get(k, {}).get('rss_mb', 0):>14.1f}" for k in kinds_order) +
          f" {row['files']:>6} {applied:>8} {failed:>6} {lag:>10.1f} {row['lateness_p99_ms']:>11.2f}", flush=True)



def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else 0.0


reroutes = {}
try:
    rs = list(csv.DictReader(open(os.path.join(lab_dir, "reroutes.csv"))))
    kern = [float(r["kernel_ms"]) for r in rs]
    comp = [float(r["compute_ms"]) for r in rs]
    routes = [int(r["routes"]) for r in rs]
    reroutes = {"convergences": len(rs), "routes_p50": pct(routes, .5), "routes_max": max(routes, default=0),
                "compute_ms_p50": pct(comp, .5), "compute_ms_p99": pct(comp, .99),
                "kernel_ms_p50": pct(kern, .5), "kernel_ms_p99": pct(kern, .99), "kernel_ms_max": max(kern, default=0)}
    print("reroutes: " + ", ".join(f"{k} {v:g}" for k, v in reroutes.items()), flush=True)
except (OSError, ValueError, KeyError):
    pass
json.dump({"rows": rows, "reroutes": reroutes} if reroutes else rows, open(out, "w"), indent=1)
problems = []
if len(rows) >= 3:
    first, last = rows[1], rows[-1]
    for k in kinds_order:
        if k == "train":
            continue  # holds the run's per-iteration record by design; shown, not judged
        a, b = first["kinds"].get(k, {}), last["kinds"].get(k, {})
        # Memory: the floor of the later minutes against the floor of the earlier ones. A
        # leak raises the floor; the allocator keeping or returning a large block does not
        # (the flap soak's timeline sat at 173.3 MB and 200.9 MB by turns with the routing
        # tables of a convergence, while a leak of 9 MB a minute raised it minute by minute).
        rss = [r["kinds"].get(k, {}).get("rss_mb", 0) for r in rows[1:]]
        half = len(rss) // 2
        early, late = min(rss[:half]), min(rss[half:])
        if late > early * (1 + RSS_SLACK) + RSS_SLACK_MB:
            problems.append(f"{k}: its floor grew from {early:.1f} MB (minutes 2-{half + 1}) "
                            f"to {late:.1f} MB (minutes {half + 2}-{len(rows)})")
        if b.get("fds", 0) > a.get("fds", 0) + FD_SLACK:
            problems.append(f"{k}: {a.get('fds', 0)} open files at minute 2, {b['fds']} at the end")
else:
    problems.append(f"only {len(rows)} minutes sampled")
if sum(r["failed"] for r in rows):
    problems.append(f"{sum(r['failed'] for r in rows)} link changes failed")
print("soak: " + ("holds" if not problems else "does not hold: " + "; ".join(problems)))
sys.exit(1 if problems else 0)
