//! Knowing the machine before a run (issue 22, item 5): over loopback, in
//! a few hundred milliseconds, the receive-timestamp noise (the spread of
//! RFD between evenly spaced datagrams, raw and as medians of five: what
//! the models see), the pacing lateness of busy and hybrid waits at a
//! spacing, and the sender's CPU time per datagram over a burst. And the
//! check the lead's lowering calls to warn when a scenario asks for a
//! spacing finer than the machine keeps.

use crate::clock::{self, monotonic_ns, realtime_ns, thread_cpu_ns};
use crate::error::{from_io, Error, Result};
use crate::stamp::{self, StampSource};
use crate::tables::percentile;
use crate::wire::DataHeader;
use serde::{Deserialize, Serialize};
use std::net::UdpSocket;
use std::os::fd::AsRawFd;

/// What to measure.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CalibrateConfig {
    #[serde(default = "spacing")]
    pub spacing_us: f64,
    #[serde(default = "packets")]
    pub packets: u32,
    #[serde(default = "payload")]
    pub payload_bytes: usize,
    #[serde(default)]
    pub cpu: Option<usize>,
    /// SCHED_FIFO priority for the paced measurements (as the sender's).
    #[serde(default)]
    pub rt_priority: Option<i32>,
}
fn spacing() -> f64 {
    100.0
}
fn packets() -> u32 {
    1000
}
fn payload() -> usize {
    1472
}

/// Lateness of one pacing method, µs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Lateness {
    pub p50_us: f64,
    pub p99_us: f64,
    pub max_us: f64,
}

/// The machine's figures.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Calibration {
    pub spacing_us: f64,
    pub packets: u32,
    pub payload_bytes: usize,
    pub stamp_source: String,
    /// RFD p1 and p99, µs, consecutive datagrams.
    pub rfd_p1_us: f64,
    pub rfd_p99_us: f64,
    /// The same over medians of five consecutive RFDs.
    pub median5_rfd_p1_us: f64,
    pub median5_rfd_p99_us: f64,
    pub busy: Lateness,
    pub hybrid: Lateness,
    /// Sender CPU per datagram over a back-to-back burst, µs.
    pub cpu_per_packet_us: f64,
    pub cores: usize,
    #[serde(default)]
    pub rt_priority: Option<i32>,
}

/// A spacing is kept only above this many times the busy wait's p99
/// lateness (below it, one late send in a hundred shifts the next by more
/// than half a spacing).
pub const LATENESS_FACTOR: f64 = 2.0;
/// The sender keeps a rate only up to this share of one core.
pub const CPU_SHARE: f64 = 0.5;

/// A warning when datagrams `spacing_us` apart are finer than this machine
/// keeps; None when it keeps them.
pub fn spacing_warning(cal: &Calibration, spacing_us: f64) -> Option<String> {
    let floor_us = LATENESS_FACTOR * cal.busy.p99_us;
    if spacing_us < floor_us {
        return Some(format!(
            "spacing {spacing_us:.1} us is finer than this machine keeps: busy-wait pacing was {:.1} us late at p99 (calibrated at {:.0} us), so spacings below {floor_us:.1} us ({LATENESS_FACTOR} x p99) are not kept",
            cal.busy.p99_us, cal.spacing_us
        ));
    }
    let pps = 1e6 / spacing_us;
    let max_pps = CPU_SHARE * 1e6 / cal.cpu_per_packet_us.max(1e-3);
    if pps > max_pps {
        return Some(format!(
            "{pps:.0} datagrams/s is above what this sender sustains: {:.2} us of CPU each, so at most {max_pps:.0}/s at {CPU_SHARE} of a core",
            cal.cpu_per_packet_us
        ));
    }
    None
}

/// Runs the calibration.
pub fn run(cfg: &CalibrateConfig) -> Result<Calibration> {
    if !(1.0..=100_000.0).contains(&cfg.spacing_us) {
        return Err(Error::Config(format!(
            "spacing_us = {}: from 1 to 100000",
            cfg.spacing_us
        )));
    }
    if !(20..=100_000).contains(&cfg.packets) {
        return Err(Error::Config(format!(
            "packets = {}: from 20 to 100000",
            cfg.packets
        )));
    }
    if !(crate::wire::HEADER_BYTES..=65_507).contains(&cfg.payload_bytes) {
        return Err(Error::Config(format!(
            "payload_bytes = {}: from {} to 65507",
            cfg.payload_bytes,
            crate::wire::HEADER_BYTES
        )));
    }
    let cores = clock::online_cores();
    let _pin = cfg.cpu.map(clock::Pin::to).transpose()?;
    // The sockets first: the kernel turns receive stamping on through
    // deferred work, which a real-time spinner on that core would starve
    // (datagrams then arrive unstamped).
    let pairs = [pair()?, pair()?];
    std::thread::sleep(std::time::Duration::from_millis(20));
    let (busy, stamps, hybrid) = {
        let _rt = cfg.rt_priority.map(clock::RealTime::set).transpose()?;
        let [first, second] = pairs;
        let (busy, stamps) = paced(cfg, false, first)?;
        let (hybrid, _) = paced(cfg, true, second)?;
        (busy, stamps, hybrid)
    };
    let (rfd, med) = rfd_spreads(&stamps);
    let source = sources(&stamps);
    Ok(Calibration {
        spacing_us: cfg.spacing_us,
        packets: cfg.packets,
        payload_bytes: cfg.payload_bytes,
        stamp_source: source,
        rfd_p1_us: rfd.0,
        rfd_p99_us: rfd.1,
        median5_rfd_p1_us: med.0,
        median5_rfd_p99_us: med.1,
        busy,
        hybrid,
        cpu_per_packet_us: cpu_per_packet(cfg)?,
        cores,
        rt_priority: cfg.rt_priority,
    })
}

type Stamps = Vec<(i64, i64, StampSource)>;

fn pair() -> Result<(UdpSocket, UdpSocket)> {
    let rx = UdpSocket::bind("127.0.0.1:0").map_err(|e| from_io("loopback UDP", &e))?;
    crate::sock::grow_rcvbuf(&rx, 16 << 20);
    stamp::enable(rx.as_raw_fd())?;
    let tx = UdpSocket::bind("127.0.0.1:0").map_err(|e| from_io("loopback UDP", &e))?;
    tx.connect(rx.local_addr().map_err(|e| from_io("loopback", &e))?)
        .map_err(|e| from_io("loopback UDP", &e))?;
    Ok((tx, rx))
}

/// Sends `packets` datagrams `spacing_us` apart (busy or hybrid) while a
/// thread reads them with their stamps; returns the lateness and stamps.
fn paced(
    cfg: &CalibrateConfig,
    hybrid: bool,
    (tx, rx): (UdpSocket, UdpSocket),
) -> Result<(Lateness, Stamps)> {
    let n = cfg.packets as usize;
    let reader = std::thread::spawn(move || read_all(&rx, n));
    let old_slack = hybrid.then(|| clock::set_timer_slack_ns(1));
    let spacing_ns = (cfg.spacing_us * 1000.0).round() as i64;
    let mut buf = vec![0u8; cfg.payload_bytes];
    let mut late = Vec::with_capacity(n);
    let mut due = monotonic_ns() + 1_000_000;
    for frame in 0..n as u64 {
        let now = if hybrid {
            clock::hybrid_until(due, 80_000)
        } else {
            clock::spin_until(due)
        };
        late.push((now - due) as f64 / 1e3);
        DataHeader {
            stream: 0,
            frame,
            sent_ns: realtime_ns(),
            wait_ns: spacing_ns,
        }
        .encode(&mut buf);
        crate::sock::send(tx.as_raw_fd(), &buf);
        due = now + spacing_ns;
    }
    if let Some(s) = old_slack {
        clock::set_timer_slack_ns(s);
    }
    let stamps = reader
        .join()
        .map_err(|_| Error::Io("calibration reader failed".into()))??;
    late.sort_by(f64::total_cmp);
    let lat = Lateness {
        p50_us: percentile(&late, 50.0),
        p99_us: percentile(&late, 99.0),
        max_us: late.last().copied().unwrap_or(f64::NAN),
    };
    Ok((lat, stamps))
}

fn read_all(rx: &UdpSocket, n: usize) -> Result<Stamps> {
    let mut out = Vec::with_capacity(n);
    let mut buf = vec![0u8; 65_536];
    let give_up = monotonic_ns() + 5_000_000_000;
    while out.len() < n && monotonic_ns() < give_up {
        match stamp::recv(rx.as_raw_fd(), &mut buf)? {
            Some(got) => {
                if let Ok(h) = DataHeader::decode(&buf[..got.len]) {
                    out.push((h.sent_ns, got.recv_ns, got.source));
                }
            }
            None => std::thread::sleep(std::time::Duration::from_micros(50)),
        }
    }
    Ok(out)
}

/// "kernel" when every stamp came from one source, else each with its count.
fn sources(stamps: &Stamps) -> String {
    let mut counts = std::collections::BTreeMap::new();
    for s in stamps {
        *counts.entry(s.2).or_insert(0usize) += 1;
    }
    if counts.len() == 1 {
        return counts.keys().next().map_or("", |s| s.name()).to_string();
    }
    let parts: Vec<String> = counts
        .iter()
        .map(|(s, n)| format!("{} {n}", s.name()))
        .collect();
    parts.join(", ")
}

/// (p1, p99) of consecutive RFDs and of their medians of five, µs.
fn rfd_spreads(stamps: &Stamps) -> ((f64, f64), (f64, f64)) {
    let rfd: Vec<f64> = stamps
        .windows(2)
        .map(|w| ((w[1].1 - w[0].1) - (w[1].0 - w[0].0)) as f64 / 1e3)
        .collect();
    let mut med: Vec<f64> = rfd
        .chunks_exact(5)
        .map(|c| {
            let mut c = c.to_vec();
            c.sort_by(f64::total_cmp);
            c[2]
        })
        .collect();
    let mut raw = rfd;
    raw.sort_by(f64::total_cmp);
    med.sort_by(f64::total_cmp);
    (
        (percentile(&raw, 1.0), percentile(&raw, 99.0)),
        (percentile(&med, 1.0), percentile(&med, 99.0)),
    )
}

/// CPU per datagram: thread CPU time over a back-to-back burst of the
/// sender's per-datagram work (stamp, header, send).
fn cpu_per_packet(cfg: &CalibrateConfig) -> Result<f64> {
    let (tx, rx) = pair()?;
    let n = (cfg.packets * 5).min(20_000);
    let mut buf = vec![0u8; cfg.payload_bytes];
    let cpu0 = thread_cpu_ns();
    for frame in 0..u64::from(n) {
        DataHeader {
            stream: 0,
            frame,
            sent_ns: realtime_ns(),
            wait_ns: 0,
        }
        .encode(&mut buf);
        crate::sock::send(tx.as_raw_fd(), &buf);
    }
    let per = (thread_cpu_ns() - cpu0) as f64 / f64::from(n) / 1e3;
    drop(rx);
    Ok(per)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cal(p99_us: f64, cpu_us: f64) -> Calibration {
        Calibration {
            spacing_us: 100.0,
            packets: 1000,
            payload_bytes: 1472,
            stamp_source: "kernel".into(),
            rfd_p1_us: -7.0,
            rfd_p99_us: 7.0,
            median5_rfd_p1_us: -2.0,
            median5_rfd_p99_us: 2.0,
            busy: Lateness {
                p50_us: 0.1,
                p99_us,
                max_us: 3.0 * p99_us,
            },
            hybrid: Lateness {
                p50_us: 1.0,
                p99_us: 50.0,
                max_us: 90.0,
            },
            cpu_per_packet_us: cpu_us,
            cores: 2,
            rt_priority: None,
        }
    }

    #[test]
    fn a_spacing_finer_than_twice_the_p99_lateness_is_warned() {
        let c = cal(10.0, 2.0);
        assert!(spacing_warning(&c, 25.0).is_none());
        let w = spacing_warning(&c, 15.0).unwrap();
        assert!(w.starts_with("spacing 15.0 us is finer"), "{w}");
        // 2 µs of CPU each: half a core sustains 250,000/s, so 3 µs apart is
        // too fast even where lateness would allow it.
        let w = spacing_warning(&cal(0.5, 2.0), 3.0).unwrap();
        assert!(w.contains("datagrams/s"), "{w}");
    }

    #[test]
    fn a_bad_calibration_field_is_named() {
        let e = run(&CalibrateConfig {
            spacing_us: 0.0,
            packets: 100,
            payload_bytes: 1472,
            cpu: None,
            rt_priority: None,
        })
        .unwrap_err();
        assert_eq!(e.to_string(), "spacing_us = 0: from 1 to 100000");
    }
}
