#!/usr/bin/env python3
"""What one timed wake-up costs this machine in CPU: the floor under the delay line's CPU
per packet when each wake-up releases one packet (docs/benchmarks.md, "The delay line's CPU
per packet").

The loop does what the delay line's does between releases and nothing else: it sleeps
until a timeout (poll(2) on no descriptor), under SCHED_FIFO and a timer slack of 1 us as
the delay line runs, and wakes. The CPU charged to it (user + system, from
getrusage) over the wake-ups, divided by their number, is the wake-up's cost: on a
paravirtualized guest each is hypervisor calls for the timer, the interrupt and two
context switches. The interpreter's own part is measured alone (the same loop with a zero
timeout, which returns without sleeping) and printed beside it.

usage: sudo bench/wake_cost.py [WAKEUPS] [SLEEP_US]   (defaults: 20000 wake-ups of 1000 us)
"""
import ctypes
import os
import resource
import select
import sys

PR_SET_TIMERSLACK = 29
SCHED_FIFO_PRIORITY = 1  # the delay line's (netns/delay_line_main.cpp)


def cpu_us():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return (r.ru_utime + r.ru_stime) * 1e6


def per_call(calls, timeout_ms):
    """CPU microseconds per poll() with this timeout (0: returns at once)."""
    p = select.poll()
    start = cpu_us()
    for _ in range(calls):
        p.poll(timeout_ms)
    return (cpu_us() - start) / calls


def main():
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    sleep_us = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_TIMERSLACK, ctypes.c_ulong(1), 0, 0, 0)
    realtime = "SCHED_FIFO"
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(SCHED_FIFO_PRIORITY))
    except PermissionError:
        realtime = "SCHED_OTHER (not root)"
    # poll() takes milliseconds; a timeout under one is rounded up by the interpreter.
    timeout_ms = sleep_us / 1000
    loop = per_call(calls, 0)
    slept = per_call(calls, timeout_ms)
    print(f"{calls} wake-ups of {sleep_us} us under {realtime}: "
          f"{slept:.1f} us of CPU each; the loop alone {loop:.1f} us; "
          f"a wake-up {slept - loop:.1f} us")


if __name__ == "__main__":
    main()
