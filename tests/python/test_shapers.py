"""Port shapers from Python: a scenario dict's `shaper` tables reach the
simulator, the ports table shows each port's shaper and how often it held a
packet, and a bad field is refused with its path."""

import fairlab
import pytest


def _shaped(shaper: dict, *, host: dict | None = None) -> dict:
    sc = {
        "duration": "200ms",
        "topology": {"kind": "star", "hosts": 2, "rate": "10Gbps", "delay": "1us"},
        "queue": {"shaper": shaper},
        "tcp": {"profile": "linux", "min_rto": "2ms", "resolution": "1us"},
        "workload": [{"kind": "bulk", "src": "h0", "dst": "h1"}],
    }
    if host is not None:
        sc["host"] = {"shaper": host}
    return sc


def test_a_tbf_on_every_switch_port_caps_a_flow_at_its_rate():
    res = fairlab.simulate(_shaped({"kind": "tbf", "rate": "100Mbps", "burst": "2621B"}))
    goodput = float(res.flows["goodput_bps"].iloc[0])
    assert goodput == pytest.approx(100e6 * 1460 / 1500, rel=0.01)
    ports = res.ports.set_index(["node", "peer"])
    assert ports.loc[("sw", "h1"), "shaper"] == "tbf(100Mbps,2621B)"
    assert ports.loc[("h0", "sw"), "shaper"] == ""
    # The data port's gate held nearly every packet once, never more.
    waits = int(ports.loc[("sw", "h1"), "shaper_waits"])
    assert 0 < waits <= int(ports.loc[("sw", "h1"), "deq_pkts"])
    assert int(ports.loc[("h0", "sw"), "shaper_waits"]) == 0


def test_an_htb_on_the_hosts_shows_mininets_burst_and_tcs_cburst():
    fast = {"kind": "tbf", "rate": "1Gbps", "burst": "3000B"}
    res = fairlab.simulate(_shaped(fast, host={"kind": "htb", "rate": "50Mbps"}))
    ports = res.ports.set_index(["node", "peer"])
    assert ports.loc[("h0", "sw"), "shaper"] == "htb(50Mbps,15KiB,1600B)"
    assert float(res.flows["goodput_bps"].iloc[0]) < 50e6


def test_a_bad_shaper_field_is_refused_with_its_path():
    small = {"kind": "tbf", "rate": "100Mbps", "burst": "1000B"}
    with pytest.raises(fairlab.ScenarioError, match=r"^queue\.shaper\.burst: .*than one packet"):
        fairlab.simulate(_shaped(small))
    fast = {"kind": "tbf", "rate": "1Gbps", "burst": "3000B"}
    with pytest.raises(fairlab.ScenarioError, match=r"^host\.shaper\.kind: .*tbf.*htb"):
        fairlab.simulate(_shaped(fast, host={"kind": "hfsc"}))
