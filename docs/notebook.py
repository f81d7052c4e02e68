# ---
# jupyter:
#   jupytext:
#     text_representation:
#       extension: .py
#       format_name: percent
#   kernelspec:
#     display_name: Python 3
#     name: python3
# ---

# %% [markdown]
# # fairlab in a notebook: TCP incast, from one run to a study
#
# This notebook walks through the incast study (docs/incast.md): many
# servers answer one client at once through one switch port, the port's
# buffer overflows, whole windows are lost and the flows wait for a
# retransmission timeout. It runs as it is in Jupyter (open it with
# jupytext, or paste the cells), and CI executes it cell by cell
# (tests/python/test_notebook.py), so every cell here works on the
# current fairlab. It takes a few seconds.

# %%
from pathlib import Path

import fairlab
from fairlab.runner import Task, run_tasks

# %% [markdown]
# ## One run
#
# Eight servers each send a 16 KiB block through a switch port with a
# 32 KiB buffer, five rounds. In Jupyter the result shows its summary, its
# tables and each flow's goodput (red bars: flows that had a
# retransmission timeout).

# %%
scenario = fairlab.scenarios.incast(8, rounds=5, sru="16KiB", buffer="32KiB")
res = fairlab.simulate(scenario, seed=1)
res

# %% [markdown]
# Every table is a pandas DataFrame: here each flow's goodput and timeouts.

# %%
res.flows[["flow_id", "src", "goodput_bps", "retransmits", "timeouts"]]

# %% [markdown]
# ## A sweep into a results store
#
# Four server counts, two buffers, two seeds: 16 runs, stored as they
# finish in `notebook-store/` (a rerun finds them there and runs nothing).
# In Jupyter, a progress bar shows while they run.

# %%
store_dir = Path("notebook-store")
tasks = [
    Task(
        fairlab.scenarios.incast(n, rounds=5, sru="16KiB", buffer=buf),
        seed=seed,
        labels={"servers": n, "buffer": buf, "seed": seed},
    )
    for n in (2, 4, 8, 16)
    for buf in ("32KiB", "128KiB")
    for seed in (1, 2)
]
results = run_tasks(tasks, jobs=1, store=store_dir)
store = fairlab.open_store(store_dir)
store

# %% [markdown]
# ## The store as one dataset
#
# `store.sql` answers SQL (DuckDB) over every run's tables at once: the
# view `flows` holds every flow of every run, each row with its run's
# labels (the swept parameters) and seed. Goodput per flow and timeouts by
# buffer and servers, over the two seeds:

# %%
answer = store.sql(
    """
    SELECT buffer, servers, count(*) AS flows,
           avg(goodput_bps) / 1e6 AS goodput_mbps, sum(timeouts) AS timeouts
    FROM flows GROUP BY buffer, servers ORDER BY buffer, servers
    """
)
answer

# %% [markdown]
# The same as a plot: past a few servers the small buffer loses whole
# windows, and each timeout costs a 200 ms idle round.

# %%
from matplotlib.figure import Figure  # noqa: E402

fig = Figure(figsize=(6, 3.5))
ax = fig.subplots()
for buf, g in answer.groupby("buffer"):
    ax.plot(g["servers"], g["goodput_mbps"], marker="o", label=f"buffer {buf}")
ax.set_xlabel("servers")
ax.set_ylabel("mean goodput per flow (Mb/s)")
ax.legend()
fig

# %% [markdown]
# ## One experiment of the study, against the published numbers
#
# `fairlab reproduce incast` runs every experiment of the study and writes
# a report; here one of them, in quick mode, and its verdicts: each
# published number or claim beside fairlab's.

# %%
from fairlab import report, studies  # noqa: E402

experiment = studies.get("incast").experiment("sigcomm09-fig14")
outcome = report.run_experiment(experiment, quick=True, jobs=1)
outcome.verdicts[["row", "verdict", "holds", "shows"]]
