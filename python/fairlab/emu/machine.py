"""What this machine's kernel offers the namespace backend, and what it can
emulate faithfully.

`describe()` reads the kernel's facts (version, CONFIG_HZ, congestion
controls, qdiscs: tried in a scratch namespace of the run's prefix);
`probe_rate()` measures the rate one htb-shaped veth port sustains with a
bulk TCP flow through it, the round trip across it and the timer slack,
so that a run can warn when a scenario asks for more than the machine
can do.
"""

from __future__ import annotations

import contextlib
import gzip
import os
import platform
import subprocess
import time
from pathlib import Path

QDISC_TRIES = {
    "htb": "htb default 1",
    "tbf": "tbf rate 1mbit burst 10k limit 10k",
    "bfifo": "bfifo limit 10000",
    "pfifo": "pfifo limit 10",
    "red": "red limit 100000 min 10000 max 30000 avpkt 1000 burst 20 bandwidth 100mbit "
    "probability 0.1",
    "sfq": "sfq",
    "netem": "netem",
    "fq": "fq",
}


def kernel_config() -> dict[str, str]:
    """The running kernel's build options (/proc/config.gz or /boot)."""
    text = ""
    p = Path("/proc/config.gz")
    try:
        if p.exists():
            text = gzip.decompress(p.read_bytes()).decode(errors="replace")
        else:
            b = Path(f"/boot/config-{platform.release()}")
            if b.exists():
                text = b.read_text(errors="replace")
    except OSError:
        text = ""
    out = {}
    for line in text.splitlines():
        if line.startswith("CONFIG_") and "=" in line:
            k, v = line.split("=", 1)
            out[k] = v
    return out


def hz() -> tuple[int, str]:
    """CONFIG_HZ and where it came from."""
    c = kernel_config()
    if "CONFIG_HZ" in c:
        return int(c["CONFIG_HZ"]), "kernel config"
    # Without the config: the timer_list's jiffies over a known interval.
    j0 = _jiffies()
    if j0 is not None:
        t0 = time.monotonic()
        time.sleep(0.2)
        j1 = _jiffies()
        dt = time.monotonic() - t0
        if j1 is not None:
            est = (j1 - j0) / dt
            return min((100, 250, 300, 1000), key=lambda h: abs(h - est)), "measured jiffies"
    return 250, "unknown (assumed 250)"


def _jiffies() -> int | None:
    try:
        for line in Path("/proc/timer_list").read_text().splitlines():
            if line.startswith("jiffies:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        return None
    return None


def congestion_controls() -> list[str]:
    """Available ones, and the allowed modules that would load on demand."""
    ccs = []
    for f in ("tcp_available_congestion_control", "tcp_allowed_congestion_control"):
        with contextlib.suppress(OSError):
            ccs += Path(f"/proc/sys/net/ipv4/{f}").read_text().split()
    return sorted(set(ccs))


def qdiscs(prefix: str) -> list[str]:
    """Qdiscs the kernel accepts, tried on `lo` of a scratch namespace."""
    ns = f"{prefix}-probe"
    subprocess.run(["ip", "netns", "add", ns], capture_output=True, check=True)
    try:
        ok = []
        for name, args in QDISC_TRIES.items():
            r = subprocess.run(
                ["tc", "-n", ns, "qdisc", "replace", "dev", "lo", "root", *args.split()],
                capture_output=True,
            )
            if r.returncode == 0:
                ok.append(name)
        return ok
    finally:
        subprocess.run(["ip", "netns", "delete", ns], capture_output=True)


def describe(prefix: str) -> dict:
    """The kernel's facts, as the lowering's Machine and the run's metadata."""
    h, source = hz()
    return {
        "hz": h,
        "hz_source": source,
        "congestion_controls": congestion_controls(),
        "qdiscs": qdiscs(prefix),
        "kernel": platform.release(),
        "cpus": os.cpu_count() or 1,
    }


def cpu_times() -> tuple[float, float]:
    """(busy, total) jiffies of all CPUs since boot (/proc/stat)."""
    f = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    v = [float(x) for x in f]
    idle = v[3] + (v[4] if len(v) > 4 else 0.0)
    return sum(v) - idle, sum(v)


def softnet_drops() -> int:
    """Packets dropped by the per-CPU input backlogs (/proc/net/softnet_stat,
    second column): drops no qdisc counts."""
    total = 0
    try:
        for line in Path("/proc/net/softnet_stat").read_text().splitlines():
            total += int(line.split()[1], 16)
    except (OSError, ValueError, IndexError):
        return -1
    return total


def timer_slack_us(n: int = 200) -> float:
    """Median overshoot of a 100 us sleep, microseconds (hrtimer slack and
    scheduling: the finest pacing an agent can keep)."""
    over = []
    for _ in range(n):
        t0 = time.monotonic()
        time.sleep(100e-6)
        over.append((time.monotonic() - t0 - 100e-6) * 1e6)
    over.sort()
    return over[len(over) // 2]
