"""Ctrl-C stops a long run promptly and cleanly: the simulator, which runs
without the GIL, lets Python's signal handlers run and stops when one raises."""

import contextlib
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/stat").exists(), reason="watches CPU time in /proc"
)

# About two minutes of simulation: far longer than any wait below.
# Minutes of CPU at any speed the simulator may reach (the limit raised on
# purpose): every test interrupts it within seconds.
LONG = """
duration = "100000s"
[limits]
max_packets = 1000000000
max_packet_hops = 10000000000
max_events = 100000000000
[topology]
kind = "dumbbell"
left = 1
right = 1
rate = "1Gbps"
delay = "50us"
bottleneck_rate = "100Mbps"
bottleneck_delay = "400us"
[queue]
limit = "1000pkt"
[tcp]
cc = "cubic"
[[workload]]
kind = "bulk"
src = "l0"
dst = "r0"
"""


def cpu_seconds(pid: int) -> float:
    """User and system CPU time a process has used (0 once it is gone)."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return 0.0
    fields = text.rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def children(pid: int) -> list[int]:
    kids = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError):
            if int(stat.read_text().rsplit(")", 1)[1].split()[1]) == pid:
                kids.append(int(stat.parent.name))
    return kids


def wait_until(cond, timeout=60.0):
    end = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.05)


def interrupt(p: subprocess.Popen, group: bool = False) -> tuple[float, str, str]:
    """Sends SIGINT (to the process group, as a terminal's Ctrl-C does, if
    ``group``); returns how long the process took to exit, and its output."""
    t0 = time.monotonic()
    if group:
        os.killpg(p.pid, signal.SIGINT)
    else:
        p.send_signal(signal.SIGINT)
    try:
        out, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        pytest.fail("still running 30 s after SIGINT")
    return time.monotonic() - t0, out, err


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


@pytest.fixture
def start(tmp_path):
    """Starts a process in its own group; kills what is left of it afterwards."""
    started = []

    def run(args):
        p = subprocess.Popen(
            args,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=tmp_path,
            start_new_session=True,
            # Ctrl-C as a terminal gives it, even when these tests run under
            # a shell that started them in the background (which ignores
            # SIGINT in every child: Python then installs no handler).
            preexec_fn=_default_sigint,
        )
        started.append(p)
        return p

    yield run
    for p in started:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(p.pid, signal.SIGKILL)
        p.communicate()


def test_ctrl_c_stops_fairlab_run_with_one_line_and_exit_130(tmp_path, start):
    (tmp_path / "long.toml").write_text(LONG)
    p = start([sys.executable, "-m", "fairlab", "run", "long.toml"])
    wait_until(lambda: cpu_seconds(p.pid) > 1.0)  # well into the simulation
    took, out, err = interrupt(p, group=True)
    assert p.returncode == 130
    # The estimate and ETA of a long run come first (fairlab run prints them
    # before it starts), then the one line; nothing else, no traceback.
    lines = err.splitlines()
    assert lines[-1] == "fairlab: interrupted" and len(lines) <= 2, err
    assert all(line.startswith("fairlab: ") for line in lines), err
    assert out == ""
    assert took < 5


def test_ctrl_c_raises_keyboard_interrupt_from_simulate_and_python_goes_on(tmp_path, start):
    (tmp_path / "long.toml").write_text(LONG)
    script = (
        "import fairlab\n"
        "print('running', flush=True)\n"
        "try:\n"
        "    fairlab.simulate('long.toml')\n"
        "except KeyboardInterrupt:\n"
        "    print('KeyboardInterrupt', flush=True)\n"
        "res = fairlab.simulate(fairlab.scenarios.incast(2, rounds=1))\n"
        "print('then ran', res.summary['rounds_completed'], 'round')\n"
    )
    p = start([sys.executable, "-c", script])
    assert p.stdout.readline() == "running\n"
    wait_until(lambda: cpu_seconds(p.pid) > 1.0)
    took, out, err = interrupt(p)
    assert (p.returncode, out, err) == (0, "KeyboardInterrupt\nthen ran 1 round\n", "")
    assert took < 5


def test_ctrl_c_stops_a_parallel_sweep_and_its_workers(start):
    # 1500 rounds of 64 x 256 KiB: long, and within the default [limits] max_packets.
    args = ["incast", "--servers", "64", "--seeds", "1,2,3,4", "--rounds", "1500"]
    args += ["--min-rto", "200us", "--jobs", "2"]
    p = start([sys.executable, "-m", "fairlab", *args])
    wait_until(lambda: any(cpu_seconds(c) > 0.5 for c in children(p.pid)))
    took, out, err = interrupt(p, group=True)
    assert p.returncode == 130
    assert (err, out) == ("fairlab: interrupted\n", "")
    assert took < 10

    def group_gone():
        try:
            os.killpg(p.pid, 0)
        except ProcessLookupError:
            return True
        return False

    wait_until(group_gone, timeout=10)  # no worker left running
