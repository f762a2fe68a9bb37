"""A parameter server written with torch.distributed's point-to-point calls (gloo): rank 0
holds the model, the other ranks are workers. Each step the server sends every worker the
model, each worker sends back its gradient on its own shard, and the server applies
their mean (synchronous SGD, as a bulk-synchronous parameter server does).

    testbed launch internet2 -- python3 examples/pytorch-ps/ps.py

The server's links carry every model and every gradient, so on a WAN the server's
placement matters: try --nodes with another node first (rank 0 is the server).
The task is logistic regression on seeded synthetic data (a fixed random separator).
"""
import argparse
import os
import sys

import torch
import torch.distributed as dist

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from testbed_metrics import Timer, report  # noqa: E402

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=20)
parser.add_argument("--batch", type=int, default=256, help="samples per worker and step")
# 10 K parameters: 40 KB each way per worker and step.
parser.add_argument("--features", type=int, default=10_000)
parser.add_argument("--density", type=float, default=0.1, help="share of a sample's features set")
parser.add_argument("--lr", type=float, default=2.0)
parser.add_argument("--seed", type=int, default=1)
args = parser.parse_args()

torch.set_num_threads(1)
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
if world < 2:
    sys.exit("ps.py needs a server and at least one worker: launch it on two nodes or more")
SERVER = 0

torch.manual_seed(args.seed)
separator = torch.randn(args.features)


def data(generator, n):
    # Sparse inputs, as text models have: a tenth of the features set in each sample.
    x = torch.randn(n, args.features, generator=generator)
    x *= (torch.rand(n, args.features, generator=generator) < args.density)
    y = (x @ separator > 0).float()
    return x, y


def loss_and_grad(w, x, y):
    w = w.clone().requires_grad_(True)
    loss = torch.nn.functional.binary_cross_entropy_with_logits(x @ w, y)
    loss.backward()
    return loss.item(), w.grad


if rank == SERVER:
    w = torch.zeros(args.features)
    held_out = data(torch.Generator().manual_seed(args.seed + 1000), 2048)
    grad = torch.empty(args.features)
    timer = Timer()
    for step in range(args.steps):
        for worker in range(1, world):
            dist.send(w, dst=worker)
        total = torch.zeros(args.features)
        for worker in range(1, world):
            dist.recv(grad, src=worker)
            total += grad
        w -= args.lr * total / (world - 1)
        seconds = timer.lap()
        held_out_loss, _ = loss_and_grad(w, *held_out)
        timer.lap()
        report(iteration=step, seconds=seconds, loss=held_out_loss)
        print(f"step {step}: {seconds:.2f} s, held-out loss {held_out_loss:.4f}", flush=True)
else:
    shard = torch.Generator().manual_seed(args.seed + rank)
    w = torch.empty(args.features)
    timer = Timer()
    for step in range(args.steps):
        dist.recv(w, src=SERVER)
        _, grad = loss_and_grad(w, *data(shard, args.batch))
        dist.send(grad, dst=SERVER)
        report(iteration=step, seconds=timer.lap(), samples=args.batch)

dist.destroy_process_group()
