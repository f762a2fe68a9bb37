"""Data-parallel training with PyTorch's DistributedDataParallel, unmodified for the testbed:
it reads torchrun's environment (RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT), as any DDP
script does, and reports its held-out loss through $TESTBED_METRICS.

    testbed launch internet2 -- python3 examples/pytorch-ddp/train.py

The task (examples/teacher_task.py) is regression onto a fixed random two-layer "teacher"
network, from seeded synthetic inputs: each rank draws its own shard, every rank evaluates
the same held-out set, so the loss is comparable across labs, strategies and runs.
"""
import argparse
import os
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from teacher_task import TeacherTask, add_arguments  # noqa: E402
from testbed_metrics import Timer, report  # noqa: E402

parser = argparse.ArgumentParser()
add_arguments(parser, steps=30)
args = parser.parse_args()

# Two threads per process would oversubscribe a small host running a rank per node.
torch.set_num_threads(1)
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()

task = TeacherTask(args.features, args.hidden, args.seed, rank)
model = task.model
ddp = DDP(model)  # DDP also broadcasts rank 0's initial model
optimizer = torch.optim.SGD(ddp.parameters(), lr=args.lr, momentum=0.9)
loss_fn = task.loss_fn
evaluate = task.evaluate

timer = Timer()
for step in range(args.steps):
    x, y = task.batch(args.batch)
    optimizer.zero_grad()
    loss_fn(ddp(x), y).backward()  # the gradient's all-reduce crosses the emulated WAN
    optimizer.step()
    seconds = timer.lap()
    fields = {"iteration": step, "seconds": seconds, "samples": args.batch}
    if step % args.eval_every == 0 or step == args.steps - 1:
        fields["loss"] = evaluate()
        timer.lap()  # evaluation is not part of the next step
    report(**fields)
    if rank == 0 and "loss" in fields:
        print(f"step {step}: {seconds:.2f} s, held-out loss {fields['loss']:.4f}", flush=True)

dist.destroy_process_group()
