"""DiLoCo over data centers that come and go, as INTELLECT-1 ran it, in plain PyTorch: each
rank trains its own copy for H inner steps, then the members of that outer step all-reduce
their pseudo-gradients (gloo) and apply them with Nesterov momentum to the shared model.
Membership changes between outer steps, under `testbed launch` and the node's churn:

    testbed launch LAB -- python3 examples/pytorch-diloco-elastic/train.py
    testbed node leave LAB n3   # SIGTERM: n3 takes part in the next outer step, then exits 0
    testbed node join LAB n3    # the rank runs again; at the next outer step it is sent the
                                # shared model and is a member of the outer step after

or with a node's `churn:` (or `schedule:` leaves and joins) in the profile (docs/diloco.md).

Membership lives in one TCPStore that rank 0 hosts (its node must stay: INTELLECT-1 kept
its store on a machine of its own). Per outer step k:

- every rank that is in (or wants in) writes state/k/RANK: "in", "leave" (told to leave:
  this is its last step) or "join", then counts itself ready (ready/k/RANK);
- rank 0 waits for every member of step k-1 that has not left, takes in whichever joiners
  are ready by then, and publishes members/k; a joiner that came late tries at k+1;
- the members form a gloo process group, re-formed only when the membership changed
  (PrefixStore per change, as torchrun's rendezvous rounds are), all-reduce the
  pseudo-gradients and a count (a joiner adds zeros and 0: it computed nothing), and apply
  the mean; when the step had joiners, rank 0 then broadcasts the shared model and the outer
  momentum (the catch-up; rank 0 reports the bytes so far as catch_up_bytes);
- a leaver exits 0 after it. The job's node is then outside until it joins.

What the testbed measures is each outer step's wall time and compute (`compute_s`: the
inner steps' own time, at least --compute-ms each, the emulated accelerator's), so the
launch's summary reports compute utilization per node over the wall time and over its
time in, as `testbed train --strategy diloco --diloco-elastic on` does (docs/launch.md).
"""
import argparse
import datetime
import json
import os
import signal
import sys
import time

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from teacher_task import TeacherTask, add_arguments  # noqa: E402
from testbed_metrics import report  # noqa: E402

parser = argparse.ArgumentParser()
add_arguments(parser, steps=200)
parser.add_argument("--inner-steps", type=int, default=10, help="H: inner steps per outer step")
parser.add_argument("--compute-ms", type=float, default=200,
                    help="an inner step's emulated compute (the accelerator's time): a step "
                         "that took less on the CPU sleeps the rest")
parser.add_argument("--outer-lr", type=float, default=0.7)  # DiLoCo's (Douillard et al.)
parser.add_argument("--outer-momentum", type=float, default=0.9)
parser.add_argument("--timeout", type=float, default=120,
                    help="seconds a store wait or a collective may take before it fails")
args = parser.parse_args()

torch.set_num_threads(1)  # one thread per rank: a small host runs a rank per node
rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
timeout = datetime.timedelta(seconds=args.timeout)
outer_steps = args.steps // args.inner_steps
# Started by its node's join (the testbed sets these; docs/launch.md): it is sent the shared
# model at the next outer step. The ranks outside at the launch are no members of the first.
joining = os.environ.get("TESTBED_RANK_JOINED") == "1"
outside = {int(r) for r in os.environ.get("TESTBED_RANKS_OUTSIDE", "").split(",") if r}

leaving = False


def told_to_leave(signum, frame):  # drained: the next outer step is its last
    global leaving
    if rank == 0:  # it hosts the store the others meet at: it stays (the run's end kills it)
        print("rank 0 hosts the run's store and does not leave", file=sys.stderr, flush=True)
        return
    leaving = True


signal.signal(signal.SIGTERM, told_to_leave)
try:
    store = dist.TCPStore(os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"]), world,
                          is_master=(rank == 0), timeout=timeout, wait_for_workers=False)
except RuntimeError as e:
    if joining:  # the run ended while this rank came back: nothing to join
        print(f"rank {rank}: no run to join ({str(e).splitlines()[0]})", flush=True)
        sys.exit(0)
    raise

task = TeacherTask(args.features, args.hidden, args.seed, rank)
shared = [p.detach().clone() for p in task.model.parameters()]  # the outer model
momentum = [torch.zeros_like(p) for p in shared]
model_bytes = sum(p.numel() * p.element_size() for p in shared)


def inner_steps(n):
    """n steps of the rank's own training from the shared model; returns their compute."""
    with torch.no_grad():
        for p, s in zip(task.model.parameters(), shared):
            p.copy_(s)
    optimizer = torch.optim.AdamW(task.model.parameters(), lr=args.lr * 0.05)
    compute = 0.0
    for _ in range(n):
        t0 = time.perf_counter()
        x, y = task.batch(args.batch)
        optimizer.zero_grad()
        task.loss_fn(task.model(x), y).backward()
        optimizer.step()
        spent = time.perf_counter() - t0
        if spent < args.compute_ms / 1000:
            time.sleep(args.compute_ms / 1000 - spent)
        compute += time.perf_counter() - t0
    return compute


def is_ready(k, r):
    # add(key, 0) reads a counter without waiting (torch 1.13's TCPStore has no check()).
    return store.add(f"ready/{k}/{r}", 0) > 0


def gather(k, expected):
    """Rank 0: publishes members/k from the ready marks of step k (see the docstring);
    returns the members of step k+1 (those of k less its leavers)."""
    deadline = time.monotonic() + args.timeout
    while True:
        waiting = [r for r in expected if not is_ready(k, r)]
        if not waiting:
            break
        if time.monotonic() > deadline:
            raise RuntimeError(f"outer step {k}: no ready from ranks {waiting}")
        time.sleep(0.01)
    states = {r: store.get(f"state/{k}/{r}").decode() for r in expected}
    joiners = [r for r in range(world) if r not in expected and is_ready(k, r)]
    leavers = [r for r, s in states.items() if s == "leave"]
    store.set(f"members/{k}", json.dumps(
        {"members": sorted(expected + joiners), "joiners": joiners, "leaving": leavers}))
    return sorted(r for r in expected + joiners if r not in leavers)


members = sorted(set(range(world)) - outside)  # rank 0's: who step k waits for
group_members = None
k = 0
if joining:
    k = store.add("outer", 0)  # the step rank 0 gathers next (it counts its gatherings)
state = "join" if joining else "in"
wall = time.perf_counter()
compute = 0.0
catch_up_total = 0  # bytes sent to joiners so far
while k < outer_steps:
    if state != "join":
        compute = inner_steps(args.inner_steps)
    if leaving:
        state = "leave"
    store.set(f"state/{k}/{rank}", state)
    store.add(f"ready/{k}/{rank}", 1)  # after its state: rank 0 reads the state once ready
    if rank == 0:
        store.add("outer", 1)  # now k + 1: joiners from now on aim at the next step
        members = gather(k, members)
    step = json.loads(store.get(f"members/{k}").decode())
    if rank not in step["members"]:  # a joiner too late for step k: the next
        k += 1
        continue
    if group_members != step["members"]:
        if group_members is not None:
            dist.destroy_process_group()
        dist.init_process_group("gloo", store=dist.PrefixStore(f"group{k}", store),
                                rank=step["members"].index(rank),
                                world_size=len(step["members"]), timeout=timeout)
        group_members = step["members"]
    t_comm = time.perf_counter()
    contributing = state != "join"
    with torch.no_grad():
        pseudo = [(s - p) if contributing else torch.zeros_like(s)
                  for s, p in zip(shared, task.model.parameters())]
        count = torch.tensor([1.0 if contributing else 0.0])
        for g in pseudo:
            dist.all_reduce(g)
        dist.all_reduce(count)
        for s, m, g in zip(shared, momentum, pseudo):  # Nesterov, as DiLoCo's outer SGD
            g /= max(count.item(), 1.0)
            m.mul_(args.outer_momentum).add_(g)
            s.sub_(args.outer_lr * (g + args.outer_momentum * m))
        catch_up = 0
        if step["joiners"]:
            for t in shared + momentum:
                dist.broadcast(t, 0)
            catch_up = 2 * model_bytes * len(step["joiners"])
        catch_up_total += catch_up
    seconds = time.perf_counter() - wall
    wall = time.perf_counter()
    with torch.no_grad():
        for p, s in zip(task.model.parameters(), shared):
            p.copy_(s)
    fields = {"iteration": k, "seconds": seconds, "compute_s": min(compute, seconds),
              "samples": 0 if state == "join" else args.batch * args.inner_steps,
              "members": len(step["members"]), "communication_s": time.perf_counter() - t_comm}
    if rank == 0:
        fields["loss"] = task.evaluate()
        fields["catch_up_bytes"] = catch_up_total
        print(f"outer step {k}: members {step['members']}, {seconds:.2f} s, "
              f"held-out loss {fields['loss']:.4f}", flush=True)
    report(**fields)
    compute = 0.0
    if state == "leave":
        print(f"rank {rank} left after outer step {k}", flush=True)
        break
    state = "in"
    k += 1

if rank == 0:
    # Late joiners read this and end; every member's last all-reduce is in already.
    store.set(f"members/{outer_steps}", json.dumps({"members": [], "joiners": []}))
    time.sleep(1)
if group_members is not None:
    dist.destroy_process_group()
