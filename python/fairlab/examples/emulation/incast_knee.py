"""Knee and floor of incast goodput curves, simulator against kernel.

    python examples/emulation/incast_knee.py incast-sim.csv incast-emu.csv

Each CSV is `fairlab incast --format csv` output (one row per run). Per min
RTO: the mean goodput over seeds per server count, the kernel's spread (sd
over seeds), the knee (the fewest servers whose mean goodput is below half
that of one server) and the floor (the lowest mean goodput from the knee
on), for both backends.
"""

import sys

import pandas as pd


def curve(path: str) -> pd.DataFrame:
    d = pd.read_csv(path)
    return (
        d.groupby(["min_rto", "servers"])["goodput_mbps"]
        .agg(["mean", "std"])
        .reset_index()
        .sort_values(["min_rto", "servers"])
    )


def knee_floor(c: pd.DataFrame) -> tuple[float, float]:
    one = c["mean"].iloc[0]
    below = c[c["mean"] < one / 2]
    if below.empty:
        return float("nan"), float(c["mean"].min())
    knee = int(below["servers"].iloc[0])
    return knee, float(c[c["servers"] >= knee]["mean"].min())


def main(sim_path: str, emu_path: str) -> None:
    sim, emu = curve(sim_path), curve(emu_path)
    for rto in sim["min_rto"].unique():
        s = sim[sim["min_rto"] == rto]
        e = emu[emu["min_rto"] == rto]
        print(f"min RTO {rto}: servers, simulator Mb/s, kernel Mb/s (sd), difference")
        for (_, a), (_, b) in zip(s.iterrows(), e.iterrows(), strict=True):
            print(
                f"  {int(a['servers']):3d} {a['mean']:7.1f} {b['mean']:7.1f} ({b['std']:4.1f})"
                f" {b['mean'] - a['mean']:+7.1f}"
            )
        (ks, fs), (ke, fe) = knee_floor(s), knee_floor(e)
        print(f"  knee: simulator {ks} servers, kernel {ke}; floor: {fs:.1f} and {fe:.1f} Mb/s")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
