"""The crew's CPU seconds node by node over the shipped gym file, beside the tree's, in one process.

Run: ``PYTHONPATH=. .venv/bin/python benchmarks/profile_nodes.py [LIMIT]``. Each graph node (graphs.nodes) is
wrapped with ``time.thread_time`` before the graph is compiled; after a warm-up pass of the team over the tasks,
the tree and the team run task by task, and the CPU seconds a task of each agent (process time), of each node and
of all the nodes together are printed (what the team spends outside its nodes is LangGraph's stream, its
checkpoints and state copies, and the uploads read in ``solve``). Nothing is asserted.
"""
import os, sys, time, tempfile, collections, functools
from pathlib import Path
os.environ.setdefault("AQUASCOPE_DELIVERABLE_WORKERS", "0")
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from graphs import nodes
acc = collections.Counter(); cnt = collections.Counter()
NODES = ["consultant","clarify","scout","methodologist","await_data","review","analysts","interpreter","critic","author","follow_up"]
for n in NODES:
    f = getattr(nodes, n)
    def wrap(f=f, n=n):
        @functools.wraps(f)
        def w(*a, **k):
            t = time.thread_time()
            try: return f(*a, **k)
            finally: acc[n] += time.thread_time() - t; cnt[n] += 1
        return w
    setattr(nodes, n, wrap())
from aquascope_core.gym import SHIPPED_TASKS, read_tasks
from graphs.gym_agents import run_agent
tasks = read_tasks(SHIPPED_TASKS)
lim = int(sys.argv[1]) if len(sys.argv) > 1 else len(tasks)
tasks = tasks[:lim]
root = Path(tempfile.mkdtemp(prefix="np-"))
for t in tasks: run_agent(t, "team", store_root=root/"w"/t.id)
acc.clear(); cnt.clear()
tot = collections.Counter()
for t in tasks:
    for ag in ("tree", "team"):
        c = time.process_time()
        run_agent(t, ag, store_root=root/ag/t.id)
        tot[ag, t.unsolvable] += time.process_time() - c
n = len(tasks)
print({k: round(v/n*1000,1) for k, v in tot.items()}, "ms/task (agent, unsolvable) sums/n")
print("tree", sum(v for (a,_),v in tot.items() if a=="tree")/n*1000, "team", sum(v for (a,_),v in tot.items() if a=="team")/n*1000)
for k in NODES:
    print(f"{k:15s} {acc[k]/n*1000:7.1f} ms/task  calls {cnt[k]}")
print("nodes total", sum(acc.values())/n*1000)
