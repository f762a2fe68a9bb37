"""Reporting to the testbed from a Python job: one JSON line per call, appended to the file
$TESTBED_METRICS names (see docs/launch.md). Outside the testbed the variable is unset and
the lines go to stdout, so the same script runs anywhere (torchrun, a laptop)."""
import json
import os
import time


def report(**fields):
    """report(iteration=12, loss=0.41, samples=512, lr=0.01)"""
    line = json.dumps(fields)
    path = os.environ.get("TESTBED_METRICS")
    if path:
        # Opened and closed per line: the testbed follows the file as it grows, and a line
        # must not wait in a buffer.
        with open(path, "a") as f:
            f.write(line + "\n")
    else:
        print(line, flush=True)


class Timer:
    """Seconds since the last lap(): an iteration's own duration."""

    def __init__(self):
        self.t = time.perf_counter()

    def lap(self):
        now = time.perf_counter()
        seconds, self.t = now - self.t, now
        return seconds
