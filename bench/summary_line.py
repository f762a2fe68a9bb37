#!/usr/bin/env python3
"""One JSON line for a bench's runs.jsonl: the run summary `testbed train --json` wrote
into LOG (the last JSON object with a final_loss), with the bench's own fields added.

usage: summary_line.py LOG NAME=VALUE...   (a VALUE of digits is stored as a number)

A run that ended without a summary (it failed before the end) is still a line: its
fields and the log's last line, so the table can say why it has no figures."""
import json
import sys


def main(argv):
    log, pairs = argv[1], argv[2:]
    lines = open(log, errors="replace").read().splitlines()
    summary = None
    for line in lines:
        try:
            j = json.loads(line)
        except ValueError:
            continue
        if isinstance(j, dict) and "final_loss" in j:
            summary = j
    out = summary or {"last_line": lines[-1] if lines else ""}
    for pair in pairs:
        name, _, value = pair.partition("=")
        out[name] = int(value) if value.lstrip("-").isdigit() else value
    print(json.dumps(out))


if __name__ == "__main__":
    main(sys.argv)
