"""The published numbers of the Radon study: Tables 5.1 to 5.7 of source
document 004 (the Radon proposal, Chapter 5, "Evaluation of Radon"), and the
figures its text states for the experiments without a table.

The table rows are kept as the seed prints them (tab-separated, one line per
node, in the seed's column order) and parsed here, so that a transcription
error is a difference of text, visible in review and checked by
tests/python/test_study_radon.py against the seed file where it is present.
Nothing else lives here: the experiments are in :mod:`.radon`.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The source document, as the report names it.
SOURCE = "source document 004 (the Radon proposal), Chapter 5"
ISSUE = "issue 21's verdict ('What it must show')"

ISSUE_ITEM3 = (
    "issue 21, item 3: measured on this machine kind between two namespaces at 100 µs spacing "
    "(the timestamp-noise model's calibration target)"
)

#: The seed file's name in the shared seeds (for the transcription test).
SEED_FILE = "004_b37bb0befd681f18.txt"

#: The columns of Tables 5.1-5.4, 5.6 and 5.7, in the seed's order, as the
#: study names them (the same names as the simulator's `streams` table).
COLUMNS = (
    "send_rate_mbps",
    "num_recv",
    "num_lost",
    "pct_lost",
    "recv_rate_mbps",
    "recv_wire_rate_mbps",
)
#: How the seed heads each column (for provenance strings).
HEADINGS = {
    "send_rate_mbps": "send rate (Mbps)",
    "num_recv": "num recv",
    "num_lost": "num lost",
    "pct_lost": "%lost",
    "recv_rate_mbps": "recv rate (Mbps)",
    "recv_wire_rate_mbps": "recv wire rate (Mbps)",
}
UNITS = {
    "send_rate_mbps": "Mb/s",
    "num_recv": "datagrams",
    "num_lost": "datagrams",
    "pct_lost": "%",
    "recv_rate_mbps": "Mb/s",
    "recv_wire_rate_mbps": "Mb/s",
}


@dataclass(frozen=True)
class SeedRow:
    """One node's row of a table, as numbers."""

    node: int
    send_rate_mbps: float
    num_recv: int
    num_lost: int
    pct_lost: float
    recv_rate_mbps: float
    recv_wire_rate_mbps: float

    @property
    def num_sent(self) -> int:
        """Datagrams the node sent: received plus lost (the tables' loss is
        a gap in the frame numbers, so the two add up to what was sent)."""
        return self.num_recv + self.num_lost

    def value(self, column: str) -> float:
        return float(getattr(self, column))


@dataclass(frozen=True)
class SeedTable:
    """One table of Chapter 5: its number, caption, the study's experiment
    and series it is compared with, the seed's lines, and the rows."""

    number: str
    caption: str
    experiment: str
    series: str
    #: Where the rows are in the seed file (1-based, inclusive).
    lines: tuple[int, int]
    text: str

    @property
    def rows(self) -> tuple[SeedRow, ...]:
        return tuple(_parse_row(line) for line in self.text.strip("\n").split("\n"))

    def row(self, node: int) -> SeedRow:
        for r in self.rows:
            if r.node == node:
                return r
        raise KeyError(node)

    def provenance(self, node: int, column: str) -> str:
        """ "Table 5.6, node 1, %lost" and where that is."""
        return (
            f"Table {self.number}, node {node}, {HEADINGS[column]} ({SOURCE}; seed lines "
            f"{self.lines[0]}-{self.lines[1]})"
        )


def _parse_row(line: str) -> SeedRow:
    f = line.split("\t")
    if len(f) != 7:
        raise ValueError(f"a table row has 7 tab-separated fields, not {len(f)}: {line!r}")
    return SeedRow(
        node=int(f[0]),
        send_rate_mbps=float(f[1]),
        num_recv=int(f[2]),
        num_lost=int(f[3]),
        pct_lost=float(f[4]),
        recv_rate_mbps=float(f[5]),
        recv_wire_rate_mbps=float(f[6]),
    )


# The rows exactly as the seed prints them (node, then COLUMNS).
TABLE_5_1 = SeedTable(
    "5.1",
    "Summary of rates and losses for a punctuated stream.",
    "punctuated",
    "non-adaptive",
    (463, 468),
    """
1\t747.117\t17571\t5652\t24.0\t565.489\t570.131
2\t250.080\t481\t19\t3.8\t245.459\t247.474
3\t250.107\t478\t22\t4.4\t244.248\t246.253
4\t250.128\t477\t23\t4.6\t244.240\t246.245
5\t250.109\t478\t22\t4.4\t240.838\t242.816
6\t250.159\t481\t19\t3.8\t238.908\t240.870
""",
)
TABLE_5_2 = SeedTable(
    "5.2",
    "Summary of rates and losses for a punctuated adaptive stream.",
    "punctuated",
    "adaptive",
    (473, 478),
    """
1\t743.848\t22666\t589\t2.5\t725.206\t731.159
2\t1.476\t499\t1\t0.2\t1.478\t1.490
3\t1.476\t499\t1\t0.2\t1.478\t1.490
4\t1.476\t499\t1\t0.2\t1.478\t1.490
5\t1.476\t499\t1\t0.2\t1.478\t1.490
6\t1.476\t499\t1\t0.2\t1.478\t1.490
""",
)
TABLE_5_3 = SeedTable(
    "5.3",
    "Summary of rates and losses for six fairshare clients.",
    "fair",
    "non-adaptive",
    (487, 492),
    """
1\t163.197\t4925\t151\t3.000\t158.403\t159.703
2\t163.153\t5056\t20\t0.390\t162.574\t163.909
3\t163.181\t5071\t5\t0.099\t163.077\t164.416
4\t163.189\t5073\t3\t0.059\t163.159\t164.498
5\t163.115\t5072\t4\t0.079\t163.063\t164.401
6\t163.167\t5074\t2\t0.039\t163.133\t164.473
""",
)
TABLE_5_4 = SeedTable(
    "5.4",
    "Summary of rates and losses for six adaptive fairshare clients.",
    "fair",
    "adaptive",
    (497, 502),
    """
1\t163.127\t5035\t41\t0.810\t161.836\t163.165
2\t163.216\t5058\t18\t0.350\t162.705\t164.041
3\t163.017\t5074\t2\t0.039\t163.019\t164.357
4\t163.130\t5072\t4\t0.079\t163.063\t164.402
5\t163.135\t5073\t3\t0.059\t163.136\t164.475
6\t163.078\t5073\t3\t0.059\t163.017\t164.355
""",
)
TABLE_5_6 = SeedTable(
    "5.6",
    "Summary of rates and losses for six unfair streams.",
    "unfair",
    "non-adaptive",
    (535, 540),
    """
1\t490.617\t9507\t5759\t38.0\t305.618\t308.127
2\t245.311\t7454\t179\t2.3\t239.648\t241.615
3\t122.704\t3813\t3\t0.1\t122.675\t123.682
4\t61.358\t1906\t2\t0.1\t61.358\t61.861
5\t30.672\t953\t0\t0.0\t30.728\t30.980
6\t30.663\t951\t2\t0.2\t30.637\t30.888
""",
)
TABLE_5_7 = SeedTable(
    "5.7",
    "Summary of rates and losses for six adaptive unfair streams.",
    "unfair",
    "adaptive",
    (545, 550),
    """
1\t489.946\t9928\t5333\t35\t318.661\t321.277
2\t245.215\t7477\t156\t2\t240.278\t242.250
3\t122.693\t3816\t0\t0\t122.823\t123.831
4\t61.352\t1908\t0\t0\t61.398\t61.902
5\t30.661\t953\t0\t0\t30.734\t30.986
6\t30.672\t953\t0\t0\t30.707\t30.959
""",
)

#: Table 5.5 as the seed prints it: node, inter-packet wait (µs), send rate
#: (Mb/s): the unfair experiment's reservations.
TABLE_5_5_LINES = (521, 526)
TABLE_5_5_TEXT = """
1\t131\t500.00
2\t262\t250.00
3\t524\t125.00
4\t1048\t62.5
5\t2097\t31.25
6\t2097\t31.25
"""


def table_5_5() -> list[tuple[int, float, float]]:
    """(node, wait in µs, send rate in Mb/s) per row of Table 5.5."""
    out = []
    for line in TABLE_5_5_TEXT.strip("\n").split("\n"):
        node, wait, rate = line.split("\t")
        out.append((int(node), float(wait), float(rate)))
    return out


def table_5_5_provenance(node: int, what: str) -> str:
    return (
        f"Table 5.5, node {node}, {what} ({SOURCE}; seed lines "
        f"{TABLE_5_5_LINES[0]}-{TABLE_5_5_LINES[1]})"
    )


#: Every table with per-node rows, in the seed's order.
TABLES = (TABLE_5_1, TABLE_5_2, TABLE_5_3, TABLE_5_4, TABLE_5_6, TABLE_5_7)


def table(experiment: str, series: str) -> SeedTable:
    for t in TABLES:
        if t.experiment == experiment and t.series == series:
            return t
    raise KeyError((experiment, series))


# The figures the text states where no table is printed.
#: Section 5.2: "a rate of 765 Mbps, or 84 µs between packets".
SINGLE_RATE_MBPS = 765.0
SINGLE_WAIT_US = 84.0
#: Section 5.2: the adaptive stream's "average rate of 739 Mbps and 87 µs".
SINGLE_ADAPTIVE_RATE_MBPS = 739.0
SINGLE_ADAPTIVE_WAIT_US = 87.0
SINGLE_SOURCE = f"stated in the text, Section 5.2 ({SOURCE})"
#: Section 5.3: the primary "86 µs inter-packet wait time, or 749 Mbps", the
#: others "a packet wait time of 257 µs" using "the theoretically remaining
#: bandwidth" (the tables: 250.08-250.16 Mb/s).
PUNCTUATED_PRIMARY_MBPS = 749.0
PUNCTUATED_PRIMARY_WAIT_US = 86.0
PUNCTUATED_BURST_MBPS = 250.0
PUNCTUATED_BURST_WAIT_US = 257.0
PUNCTUATED_SOURCE = f"stated in the text, Section 5.3, and Tables 5.1/5.2 ({SOURCE})"
#: Section 5.4: "394 µs wait times"; the text's "166 Mbps" is the nominal
#: share (1000/6), the tables' send rates are 163.0-163.2 Mb/s.
FAIR_WAIT_US = 394.0
FAIR_TEXT_MBPS = 166.0
FAIR_TABLE_MBPS = 163.0
FAIR_SOURCE = f"stated in the text, Section 5.4, and Tables 5.3/5.4 ({SOURCE})"
