"""The task the PyTorch examples train: regression onto a fixed random two-layer "teacher"
network, from seeded synthetic inputs. Each rank draws its own shard; every rank evaluates
the same held-out set, so the loss is comparable across labs, strategies and runs."""
import torch


def add_arguments(parser, steps):
    """The options of the task and its training, shared by the examples."""
    parser.add_argument("--steps", type=int, default=steps)
    parser.add_argument("--batch", type=int, default=64, help="samples per rank and step")
    parser.add_argument("--features", type=int, default=64)
    # 64 -> 256 -> 256 -> 1 is 83 K parameters, 330 KB of gradient per step: on Internet2's
    # 30 ms links, nine ranks on two cores, a DDP step took about 4 s (docs/faults.md), most
    # of it the all-reduce's rounds across the WAN.
    parser.add_argument("--hidden", type=int, default=256)
    parser.add_argument("--lr", type=float, default=0.02)
    parser.add_argument("--eval-every", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)


class TeacherTask:
    def __init__(self, features=64, hidden=256, seed=1, rank=0):
        self.features = features
        torch.manual_seed(seed)  # the teacher and the held-out set: the same on every rank
        # Scaled so the targets have about unit variance: the loss starts near 1 whatever
        # the sizes.
        self.w1 = torch.randn(features, 32) / features**0.5
        self.w2 = torch.randn(32, 1) / 32**0.5 * 2
        self.held_out = self.data(torch.Generator().manual_seed(seed + 1000), 2048)
        self.shard_seed = seed + 1 + rank
        self.shard = torch.Generator().manual_seed(self.shard_seed)  # this rank's own data
        torch.manual_seed(seed + 7)  # the same initial model everywhere
        self.model = torch.nn.Sequential(
            torch.nn.Linear(features, hidden), torch.nn.ReLU(),
            torch.nn.Linear(hidden, hidden), torch.nn.ReLU(),
            torch.nn.Linear(hidden, 1))
        self.loss_fn = torch.nn.MSELoss()

    def teacher(self, x):
        return torch.tanh(x @ self.w1) @ self.w2

    def data(self, generator, n):
        x = torch.randn(n, self.features, generator=generator)
        return x, self.teacher(x)

    def batch(self, n):
        return self.data(self.shard, n)

    def seek(self, steps, n):
        """Puts this rank's data where it is after `steps` batches of n (a resumed run draws
        what an uninterrupted one would)."""
        self.shard = torch.Generator().manual_seed(self.shard_seed)
        for _ in range(steps):
            self.batch(n)

    def evaluate(self):
        with torch.no_grad():
            return self.loss_fn(self.model(self.held_out[0]), self.held_out[1]).item()
