"""What the namespace backend may touch, and how it undoes it.

Every run takes a prefix, ``fl`` and four hex digits, that names all it
creates: namespaces ``<prefix>-<node>``, interfaces ``<prefix>l<link><end>``
(at most 15 characters, IFNAMSIZ - 1). Before it creates anything it writes
a state file, ``STATE_DIR/<prefix>.json``, listing every name it will create;
`fairlab emulate --cleanup` removes what the state files list (and only
names with their prefixes), kills processes inside those namespaces, and
deletes the state files. A run cleans up after itself on normal exit, on an
error and on SIGINT/SIGTERM; after SIGKILL, ``--cleanup`` does it.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

#: Where runs record what they create (tmpfs: gone after a reboot, as are
#: namespaces). FAIRLAB_EMU_STATE overrides it (tests).
STATE_DIR = Path(os.environ.get("FAIRLAB_EMU_STATE", "/run/fairlab/emu"))

PREFIX_RE = re.compile(r"^fl[0-9a-f]{4}$")

#: Linux's IFNAMSIZ is 16 bytes with the terminating NUL (include/uapi/linux/if.h).
MAX_IFNAME = 15


class EmulationRefused(Exception):
    """The machine cannot run an emulation: one line saying why."""


def check_machine() -> None:
    """Refuses, before touching anything, without root, tools or netns."""
    if os.geteuid() != 0:
        raise EmulationRefused(
            "the namespace backend needs root (creating network namespaces and "
            "qdiscs needs CAP_NET_ADMIN and CAP_SYS_ADMIN); run as root"
        )
    for tool in ("ip", "tc"):
        if shutil.which(tool) is None:
            raise EmulationRefused(
                f"the namespace backend needs `{tool}` (iproute2), not found on PATH"
            )
    if not Path("/proc/self/ns/net").exists():
        raise EmulationRefused("this kernel has no network namespaces (/proc/self/ns/net)")
    # `ip netns` needs a writable /run/netns (or /var/run/netns) to mount on.
    r = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True)
    if r.returncode != 0:
        raise EmulationRefused(
            f"`ip netns list` failed: {r.stderr.strip() or r.returncode}; "
            "network namespaces are not usable here"
        )


def new_prefix() -> str:
    """A prefix no state file and no namespace uses yet."""
    taken = set(_namespaces())
    for _ in range(1000):
        p = "fl" + secrets.token_hex(2)
        if not (STATE_DIR / f"{p}.json").exists() and not any(n.startswith(p + "-") for n in taken):
            return p
    raise EmulationRefused("no free run prefix (1000 tried); run `fairlab emulate --cleanup`")


def ns_name(prefix: str, node: str) -> str:
    return f"{prefix}-{node}"


def if_name(prefix: str, link: int, end: str) -> str:
    name = f"{prefix}l{link}{end}"
    if len(name) > MAX_IFNAME:
        raise EmulationRefused(
            f"topology: link {link} gives interface name {name!r}, longer than "
            f"{MAX_IFNAME} characters; expected fewer links"
        )
    return name


@dataclass
class State:
    """What one run creates, written before it creates it."""

    prefix: str
    namespaces: list[str]
    pid: int = field(default_factory=os.getpid)
    created: float = field(default_factory=time.time)
    #: The process's start time (/proc/PID/stat), so that a reused pid is
    #: not taken for the run's process.
    pid_start: int = field(default_factory=lambda: _start_time(os.getpid()))

    @property
    def path(self) -> Path:
        return STATE_DIR / f"{self.prefix}.json"

    def write(self) -> None:
        STATE_DIR.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".tmp")
        tmp.write_text(
            json.dumps(
                {
                    "prefix": self.prefix,
                    "namespaces": self.namespaces,
                    "pid": self.pid,
                    "pid_start": self.pid_start,
                    "created": self.created,
                }
            )
        )
        os.replace(tmp, self.path)

    @classmethod
    def read(cls, path: Path) -> State | None:
        try:
            d = json.loads(path.read_text())
            prefix = d["prefix"]
            names = [str(n) for n in d["namespaces"]]
        except (OSError, ValueError, KeyError, TypeError):
            return None
        # Only names this backend makes: a tampered file deletes nothing else.
        if not PREFIX_RE.match(str(prefix)) or path.stem != prefix:
            return None
        names = [n for n in names if n.startswith(prefix + "-")]
        return cls(
            prefix=prefix,
            namespaces=names,
            pid=int(d.get("pid", 0)),
            pid_start=int(d.get("pid_start", -1)),
        )


def _namespaces() -> list[str]:
    r = subprocess.run(["ip", "netns", "list"], capture_output=True, text=True)
    return [line.split()[0] for line in r.stdout.splitlines() if line.strip()]


def _pids_in(ns: str) -> list[int]:
    r = subprocess.run(["ip", "netns", "pids", ns], capture_output=True, text=True)
    return [int(x) for x in r.stdout.split() if x.isdigit()]


def _kill_in(namespaces: list[str]) -> int:
    """SIGKILLs every process inside the namespaces; how many."""
    killed = 0
    for _ in range(3):
        pids = [p for ns in namespaces for p in _pids_in(ns) if p != os.getpid()]
        if not pids:
            break
        for p in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(p, signal.SIGKILL)
                killed += 1
        time.sleep(0.05)
    return killed


def remove(state: State) -> list[str]:
    """Undoes one run: kills its namespaces' processes, deletes the
    namespaces (their veths go with them), then the state file. Returns
    the namespaces deleted."""
    present = set(_namespaces())
    mine = [n for n in state.namespaces if n in present]
    # Namespaces of the prefix the file did not list (a run killed before
    # it rewrote its file cannot have made any: the file comes first).
    _kill_in(mine)
    if mine:
        batch = "".join(f"netns delete {n}\n" for n in mine)
        subprocess.run(["ip", "-force", "-batch", "-"], input=batch, text=True, capture_output=True)
    # Interfaces left in the root namespace (none, unless a move failed).
    r = subprocess.run(["ip", "-o", "link", "show"], capture_output=True, text=True)
    for line in r.stdout.splitlines():
        m = re.match(r"^\d+: ([^:@]+)", line)
        if m and re.fullmatch(re.escape(state.prefix) + r"l\d+[ab]", m.group(1)):
            subprocess.run(["ip", "link", "delete", m.group(1)], capture_output=True)
    with contextlib.suppress(FileNotFoundError):
        state.path.unlink()
    return mine


def states() -> list[State]:
    if not STATE_DIR.is_dir():
        return []
    out = []
    for p in sorted(STATE_DIR.glob("fl*.json")):
        s = State.read(p)
        if s is not None:
            out.append(s)
    return out


def _start_time(pid: int) -> int:
    """The process's start time in clock ticks since boot (proc(5), field
    22 of /proc/PID/stat), or -1."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        return int(stat.rsplit(")", 1)[1].split()[19])
    except (OSError, ValueError, IndexError):
        return -1


def _alive(state: State) -> bool:
    """Whether the run's own process still runs (same pid, same start)."""
    start = _start_time(state.pid)
    return start >= 0 and start == state.pid_start


def cleanup(include_running: bool = False) -> list[str]:
    """Removes what earlier runs left: every state file's namespaces. A run
    whose process still lives is left alone unless ``include_running``."""
    removed = []
    for s in states():
        if s.pid and s.pid != os.getpid() and _alive(s) and not include_running:
            continue
        removed += remove(s)
    return removed


class _Interrupted(BaseException):
    """SIGTERM raised in the main thread, so that `finally` blocks run."""


@contextlib.contextmanager
def guarded(state: State) -> Iterator[State]:
    """Writes the state file, and undoes the run however the block ends
    (return, exception, SIGINT as KeyboardInterrupt, SIGTERM)."""

    def on_term(signum: int, frame: object) -> None:
        raise _Interrupted(signum)

    old = signal.signal(signal.SIGTERM, on_term)
    old_hup = signal.signal(signal.SIGHUP, on_term)
    old_int = signal.getsignal(signal.SIGINT)
    state.write()
    try:
        yield state
    except _Interrupted:
        raise KeyboardInterrupt from None
    finally:
        # No second signal may interrupt the cleanup itself.
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            remove(state)
        finally:
            signal.signal(signal.SIGTERM, old)
            signal.signal(signal.SIGHUP, old_hup)
            signal.signal(signal.SIGINT, old_int)
