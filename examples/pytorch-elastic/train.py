"""Data-parallel training that survives a node's crash: the DDP example (examples/pytorch-ddp)
made elastic the way torchrun's agent makes a job elastic, for one process per node and
`testbed node restart` (docs/faults.md):

    testbed launch LAB -- python3 examples/pytorch-elastic/train.py
    testbed node crash LAB n3      # its rank dies; the others' all-reduce fails at once
    testbed node restart LAB n3    # the rank runs again, same command and environment

Every rank keeps a client of one TCPStore that rank 0 hosts (the job's rendezvous: rank 0
must survive, as torchrun's c10d rendezvous host must). A rank joins a generation by adding
one to the store's arrival count: the k-th world of arrivals is generation k, whatever
their order, so the survivors of a crash (who re-join when their collective fails) and the
restarted rank (who joins on start) meet in the next generation's process group without
agreeing on anything else. After a re-join every rank takes up rank 0's model, momentum and
step, and its own data from that step, so the run goes on as if never interrupted (the
step under way at the crash is done again) instead of starting over.

Two timeouts make it work. Only the crashed rank's ring neighbours see its connections
close (its kernel closes them); the others wait in their all-reduce for data that will not
come, until the collective timeout (--timeout; gloo's default is 30 minutes) fails them too.
So the rendezvous must wait longer (--rendezvous-timeout) than a collective, plus the time
the restart takes: the first to re-join wait there for the rest. The collective timeout
must also exceed the longest legitimate step, a flap or a slow link's included, or a step
that merely waits is taken for a failure.
"""
import argparse
import datetime
import os
import sys

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from teacher_task import TeacherTask, add_arguments  # noqa: E402
from testbed_metrics import Timer, report  # noqa: E402

parser = argparse.ArgumentParser()
add_arguments(parser, steps=60)
parser.add_argument("--timeout", type=float, default=15,
                    help="seconds a collective waits for a silent peer before it fails")
parser.add_argument("--rendezvous-timeout", type=float, default=120,
                    help="seconds a re-join waits for the others (and the restarted rank)")
parser.add_argument("--max-rejoins", type=int, default=3)
args = parser.parse_args()

torch.set_num_threads(1)  # one thread per rank: a small host runs a rank per node
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
timeout = datetime.timedelta(seconds=args.timeout)
store = dist.TCPStore(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), world,
                      is_master=(rank == 0),
                      timeout=datetime.timedelta(seconds=args.rendezvous_timeout),
                      wait_for_workers=False)
task = TeacherTask(args.features, args.hidden, args.seed, rank)


def join():
    """Joins the next generation's process group, and takes up rank 0's state: its model
    (DDP's constructor broadcasts it), its optimizer's momentum and its step, from which
    every rank's data goes on as in a run that was never interrupted. Returns the
    generation, the DDP module and the step."""
    generation = (store.add("arrivals", 1) - 1) // world
    dist.init_process_group("gloo", store=dist.PrefixStore(f"generation{generation}", store),
                            rank=rank, world_size=world, timeout=timeout)
    ddp = DDP(task.model)
    for p in task.model.parameters():
        # SGD starts a buffer from zeros as it would from none: zeros where rank 0 has none.
        momentum = optimizer.state[p].get("momentum_buffer")
        momentum = torch.zeros_like(p) if momentum is None else momentum
        dist.broadcast(momentum, 0)
        optimizer.state[p]["momentum_buffer"] = momentum
    step = torch.tensor([resume_at])
    dist.broadcast(step, 0)
    task.seek(int(step.item()), args.batch)
    return generation, ddp, int(step.item())


optimizer = torch.optim.SGD(task.model.parameters(), lr=args.lr, momentum=0.9)
resume_at = 0
rejoins = 0
timer = Timer()
generation, ddp, step = join()
print(f"rank {rank} joined generation {generation} at step {step}", flush=True)
while step < args.steps:
    try:
        x, y = task.batch(args.batch)
        optimizer.zero_grad()
        task.loss_fn(ddp(x), y).backward()  # the all-reduce: fails when a peer is gone
        optimizer.step()
    except RuntimeError as e:
        if rejoins == args.max_rejoins:
            raise
        rejoins += 1
        print(f"rank {rank} at step {step}: {str(e).splitlines()[0]}; re-joining", flush=True)
        dist.destroy_process_group()
        resume_at = step  # this step's update is lost: it is done again (rank 0's decides)
        generation, ddp, step = join()
        print(f"rank {rank} joined generation {generation} at step {step}", flush=True)
        report(generation=generation)  # a gauge; the step done again counts the wait
        continue
    seconds = timer.lap()
    fields = {"iteration": step, "seconds": seconds, "samples": args.batch}
    if step % args.eval_every == 0 or step == args.steps - 1:
        fields["loss"] = task.evaluate()
        timer.lap()
    report(**fields)
    if rank == 0 and "loss" in fields:
        print(f"step {step}: {seconds:.2f} s, held-out loss {fields['loss']:.4f}", flush=True)
    step += 1
dist.destroy_process_group()
