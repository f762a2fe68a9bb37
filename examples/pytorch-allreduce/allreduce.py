"""gloo's all-reduce of N floats, timed: the real framework's collective, for comparing
with the testbed's own ring (bench/launch-crosscheck.sh). Every rank checks the sum.

    testbed launch internet2 -- python3 examples/pytorch-allreduce/allreduce.py --floats 2560000

Each all-reduce is one iteration: its seconds on this rank go to $TESTBED_METRICS, with its
start and end on the host's monotonic clock (every node of a lab shares the host's), so
the collective can also be timed as the testbed times its own: from the moment the last
rank started to the moment the last rank ended.
"""
import argparse
import os
import socket
import sys
import time

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testbed_metrics import report  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--floats", type=int, default=4)
parser.add_argument("--repeat", type=int, default=1)
args = parser.parse_args()

torch.set_num_threads(1)
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
tensor = torch.ones(args.floats)
for i in range(args.repeat):
    tensor.fill_(1.0)
    dist.barrier()  # every rank starts the collective together, as a training step would
    start = time.monotonic()
    dist.all_reduce(tensor)
    end = time.monotonic()
    report(iteration=i, seconds=end - start, floats=args.floats, start_monotonic=start,
           end_monotonic=end)
    if not torch.all(tensor == world):
        sys.exit(f"rank {rank}: all-reduce gave {tensor[0].item()}, not {world}")
print(f"rank {rank} on {socket.gethostname()}: every element is {tensor[0].item():.0f}",
      flush=True)
dist.destroy_process_group()
