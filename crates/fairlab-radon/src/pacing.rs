//! Which pacing a run uses, and why. `auto` busy-waits where the machine has
//! a core to spare (two or more) and sleeps-then-spins otherwise. SO_TXTIME
//! is not trusted: the kernel accepts the option under any qdisc and honours
//! it only under `etf` or `fq`, so the sending interface's egress qdisc is
//! read (`tc qdisc show`) and the verdict says what was found.

use crate::clock::online_cores;
use crate::config::Pacing;
use std::process::Command;

/// The pacing a run uses, with its reasons (for the `machine` record).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chosen {
    /// "busy" or "hybrid".
    pub mode: Pacing,
    pub why: String,
    pub txtime: String,
}

/// Decides the pacing for a run asked to pace by `asked`; `probe` gives the
/// egress qdiscs of the streams' interfaces (name, kind).
pub fn choose(asked: Pacing, cores: usize, qdiscs: &[(String, String)]) -> Chosen {
    let txtime = txtime_verdict(qdiscs);
    let (mode, why) = match asked {
        Pacing::Busy => (Pacing::Busy, "busy: asked".to_string()),
        Pacing::Hybrid => (Pacing::Hybrid, "hybrid: asked".to_string()),
        Pacing::Auto if cores >= 2 => (
            Pacing::Busy,
            format!("busy: auto, {cores} cores (one spins for the sender)"),
        ),
        Pacing::Auto => (
            Pacing::Hybrid,
            format!("hybrid: auto, {cores} core (a spinning sender would starve the rest)"),
        ),
        Pacing::Txtime => (
            Pacing::Busy,
            "busy: txtime asked, but this build paces SO_TXTIME nowhere it can test; see txtime"
                .to_string(),
        ),
    };
    Chosen { mode, why, txtime }
}

/// What SO_TXTIME would do on these interfaces.
pub fn txtime_verdict(qdiscs: &[(String, String)]) -> String {
    if qdiscs.is_empty() {
        return "SO_TXTIME unavailable: the egress qdisc could not be read; pacing by busy-wait"
            .into();
    }
    let honouring: Vec<&(String, String)> = qdiscs
        .iter()
        .filter(|(_, k)| k == "etf" || k == "fq")
        .collect();
    if honouring.len() == qdiscs.len() {
        return format!(
            "SO_TXTIME would be honoured (egress qdisc {}), but this build paces by busy-wait",
            qdiscs[0].1
        );
    }
    let (dev, kind) = qdiscs
        .iter()
        .find(|(_, k)| k != "etf" && k != "fq")
        .cloned()
        .unwrap_or_default();
    format!("SO_TXTIME unavailable: the egress qdisc of {dev} is {kind}; pacing by busy-wait")
}

/// The root qdisc kind of the interface that routes to `dst` (in `netns`),
/// by `ip route get` and `tc qdisc show`; None when either tool fails.
pub fn egress_qdisc(netns: Option<&str>, dst: &str) -> Option<(String, String)> {
    let run = |tool: &str, args: &[&str]| -> Option<String> {
        let mut cmd = Command::new(tool);
        if let Some(ns) = netns {
            cmd.args(["-n", ns]);
        }
        let out = cmd.args(args).output().ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).into_owned())
    };
    let route = run("ip", &["route", "get", dst])?;
    let dev = word_after(&route, "dev")?;
    let qdiscs = run("tc", &["qdisc", "show", "dev", &dev])?;
    let root = qdiscs
        .lines()
        .find(|l| l.contains(" root ") || l.contains("qdisc noqueue"))?;
    let kind = root.split_whitespace().nth(1)?.to_string();
    Some((dev, kind))
}

fn word_after(text: &str, key: &str) -> Option<String> {
    let mut words = text.split_whitespace();
    while let Some(w) = words.next() {
        if w == key {
            return words.next().map(str::to_string);
        }
    }
    None
}

/// The machine's cores, for `choose`.
pub fn cores() -> usize {
    online_cores()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn txtime_is_refused_under_htb_and_auto_spins_on_two_cores() {
        let htb = [("veth0".to_string(), "htb".to_string())];
        let c = choose(Pacing::Txtime, 2, &htb);
        assert_eq!(c.mode, Pacing::Busy);
        assert_eq!(
            c.txtime,
            "SO_TXTIME unavailable: the egress qdisc of veth0 is htb; pacing by busy-wait"
        );
        assert_eq!(choose(Pacing::Auto, 2, &htb).mode, Pacing::Busy);
        assert_eq!(choose(Pacing::Auto, 1, &htb).mode, Pacing::Hybrid);
        let fq = [("eth0".to_string(), "fq".to_string())];
        assert!(txtime_verdict(&fq).contains("would be honoured"));
    }

    #[test]
    fn loopback_has_a_readable_qdisc() {
        if let Some((dev, kind)) = egress_qdisc(None, "127.0.0.1") {
            assert_eq!(dev, "lo");
            assert!(!kind.is_empty());
        }
    }
}
