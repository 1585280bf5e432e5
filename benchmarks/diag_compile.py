#!/usr/bin/env python3
"""Where torch.compile's first call spends its time (the smoke test's compile check), phase by phase."""
import sys
import time

t = [time.perf_counter()]
names = []


def lap(name):
    t.append(time.perf_counter())
    names.append(name)


import torch  # noqa: E402
lap("import torch")
dev = "cuda" if torch.cuda.is_available() else "cpu"
x = torch.randn(4096, device=dev)
y = torch.randn(4096, device=dev)
if dev == "cuda":
    torch.cuda.synchronize()
lap("device init")
import torch._dynamo  # noqa: E402
lap("import torch._dynamo")


def fn(a, b):
    return torch.sin(a) * b + torch.cos(b) * 2.0


torch.compile(fn, backend="eager", fullgraph=True)(x, y)
lap("dynamo eager first call")
import torch._inductor.config as ic  # noqa: E402
ic.compile_threads = 1
lap("import inductor config")
torch._dynamo.reset()
torch.compile(fn, fullgraph=True)(x, y)
if dev == "cuda":
    torch.cuda.synchronize()
lap("inductor first call")
torch._dynamo.reset()
torch.compile(fn, fullgraph=True)(x * 2, y)
lap("inductor again (reset)")
for n, a, b in zip(names, t, t[1:]):
    print("%-28s %6.2f s" % (n, b - a))
print("modules loaded:", len(sys.modules), "sympy" in sys.modules)
