use crate::assert_close;
use fairlab_radon_core::model::{Basic, BasicReading, Median5, Pathload};
use fairlab_radon_core::{pathload_trend, Estimate, Model, ModelKind, PctDivisor, Trend};

/// L/C of the hand-built sequences: 1 ns per packet.
const SVC_PS: i64 = 1_000;
/// Send spacing of the hand-built sequences.
const GAP_PS: i64 = 100_000;
/// The receiver's clock runs this far ahead; every model must cancel it.
const OFFSET_PS: i64 = 7_000_000;

/// Feeds datagrams k = 0.. with one-way delays `owd_ps[k]`; returns every
/// estimate with the index of the datagram that produced it.
fn feed(model: &mut Model, owd_ps: &[i64]) -> Vec<(usize, Estimate)> {
    let mut out = Vec::new();
    for (k, owd) in owd_ps.iter().enumerate() {
        let sent = k as i64 * GAP_PS;
        if let Some(e) = model.observe(sent, sent + owd + OFFSET_PS) {
            out.push((k, e));
        }
    }
    out
}

/// A queue growing one packet per datagram: OWD_k = k·L/C.
fn ramp(n: usize) -> Vec<i64> {
    (0..n as i64).map(|k| k * SVC_PS).collect()
}

#[test]
fn basic_interval_sums() {
    // RFDs of datagrams 1..5: 0, +1000, +1000, +1000, 0 → 3 packets;
    // 6..10: −1000, −1000, 0, 0, 0 → −2; 11..15: −1000 ×3, 0, 0 → −3.
    let owd = [
        50, 50, 1050, 2050, 3050, 3050, 2050, 1050, 1050, 1050, 1050, 50, -950, -1950, -1950, -1950,
    ];
    let mut interval = Model::Basic(Basic::new(SVC_PS));
    let got: Vec<(usize, f64, Trend)> = feed(&mut interval, &owd)
        .into_iter()
        .map(|(k, e)| (k, e.depth_pkts, e.trend))
        .collect();
    assert_eq!(
        got,
        vec![
            (5, 3.0, Trend::Unknown),
            (10, -2.0, Trend::Unknown),
            (15, -3.0, Trend::Unknown)
        ]
    );
    // Santa Cruz's running sum: 3, 3 − 2 = 1, max(0, 1 − 3) = 0.
    let mut cumulative = Model::Basic(Basic::with(SVC_PS, 5, BasicReading::Cumulative));
    let depths: Vec<f64> = feed(&mut cumulative, &owd)
        .into_iter()
        .map(|(_, e)| e.depth_pkts)
        .collect();
    assert_eq!(depths, vec![3.0, 1.0, 0.0]);
}

#[test]
fn basic_ramp_grows_five_per_interval() {
    let mut m = Model::new(ModelKind::Basic, SVC_PS);
    let got = feed(&mut m, &ramp(21));
    assert_eq!(got.len(), 4);
    assert!(got.iter().all(|(_, e)| e.depth_pkts == 5.0));
    assert_eq!(m.last().map(|e| e.depth_pkts), Some(5.0));
}

#[test]
fn pathload_statistics_of_hand_sequences() {
    // Strictly rising 1..10: 9 rising pairs; PDT 9/9.
    let rising: Vec<f64> = (1..=10).map(f64::from).collect();
    let t = pathload_trend(&rising, PctDivisor::PairsGammaMinusOne);
    assert_eq!((t.pct, t.pdt, t.trend), (1.0, 1.0, Trend::Increasing));
    let t = pathload_trend(&rising, PctDivisor::Gamma);
    assert_eq!((t.pct, t.pdt, t.trend), (0.9, 1.0, Trend::Increasing));
    // [0, 10, 5, 15, 8]: rising 0→10, 5→15: 2 of 4 pairs; PDT 8/(10+5+10+7).
    let zigzag = [0.0, 10.0, 5.0, 15.0, 8.0];
    let paper = pathload_trend(&zigzag, PctDivisor::PairsGammaMinusOne);
    assert_eq!((paper.pct, paper.pdt), (0.5, 0.25));
    // 0.5 is not below 0.495: ambiguous by the paper's divisor …
    assert_eq!(paper.trend, Trend::Ambiguous);
    // … 2/5 = 0.4 and 0.25 are both below: no trend by pathload 1.3.2's.
    let code = pathload_trend(&zigzag, PctDivisor::Gamma);
    assert_eq!((code.pct, code.trend), (0.4, Trend::NoTrend));
    // Flat: PDT 0, PCT 0.
    let flat = pathload_trend(&[3.0; 6], PctDivisor::PairsGammaMinusOne);
    assert_eq!((flat.pct, flat.pdt, flat.trend), (0.0, 0.0, Trend::NoTrend));
    // Falling: PDT −1.
    let falling = pathload_trend(&[5.0, 4.0, 3.0, 2.0, 1.0], PctDivisor::Gamma);
    assert_eq!((falling.pdt, falling.trend), (-1.0, Trend::NoTrend));
    // PDT alone: [0, 1, 0, 1, 0, 10] → PCT 3/5 = 0.6, PDT 10/14 > 0.44.
    let jump = pathload_trend(&[0.0, 1.0, 0.0, 1.0, 0.0, 10.0], PctDivisor::default());
    assert_close(jump.pct, 0.6, 1e-12);
    assert_close(jump.pdt, 10.0 / 14.0, 1e-12);
    assert_eq!(jump.trend, Trend::Increasing);
}

#[test]
fn pathload_needs_five_groups() {
    let four = pathload_trend(&[1.0, 2.0, 3.0, 4.0], PctDivisor::default());
    assert_eq!((four.pct, four.pdt, four.trend), (1.0, 1.0, Trend::Unknown));
    assert_eq!(
        pathload_trend(&[], PctDivisor::default()).trend,
        Trend::Unknown
    );
    // A 16-packet train: groups of 4, Γ = 4: discarded, no estimate.
    let mut short = Pathload::with(SVC_PS, 16, PctDivisor::default());
    for k in 0..16 {
        assert_eq!(short.observe(k * GAP_PS, k * GAP_PS + k * SVC_PS), None);
    }
    assert_eq!(short.last_trend().map(|t| t.trend), Some(Trend::Unknown));
    assert_eq!(short.last(), None);
}

/// A 25-packet train: five groups of five whose medians are 1000, 3000,
/// 2000, 4000, 5000 ps.
fn train_25() -> Vec<i64> {
    let groups: [[i64; 5]; 5] = [
        [900, 1000, 1500, 800, 1100],   // sorted 800 900 1000 1100 1500
        [3000, 2900, 3300, 3100, 100],  // sorted 100 2900 3000 3100 3300
        [2000; 5],                      // 2000
        [4100, 3900, 4000, 4200, 3800], // 4000
        [5000, 5000, 4000, 6000, 5500], // sorted 4000 5000 5000 5500 6000
    ];
    groups.iter().flatten().copied().collect()
}

#[test]
fn pathload_train_of_25_by_hand() {
    // Rising pairs 1000→3000, 2000→4000, 4000→5000: PCT 3/4 = 0.75 (3/5 =
    // 0.6 by Γ); PDT (5000 − 1000)/(2000 + 1000 + 2000 + 1000) = 2/3.
    // Depth: last median above the lowest, (5000 − 1000)/1000 = 4 packets.
    let mut m = Pathload::with(SVC_PS, 25, PctDivisor::PairsGammaMinusOne);
    let mut model = Model::Pathload(m.clone());
    let got = feed(&mut model, &train_25());
    assert_eq!(
        got,
        vec![(
            24,
            Estimate {
                depth_pkts: 4.0,
                trend: Trend::Increasing
            }
        )]
    );
    for (k, owd) in train_25().into_iter().enumerate() {
        let sent = k as i64 * GAP_PS;
        m.observe(sent, sent + owd);
    }
    let t = m.last_trend().expect("train complete");
    assert_eq!(t.pct, 0.75);
    assert_close(t.pdt, 2.0 / 3.0, 1e-12);
    let mut by_gamma = Pathload::with(SVC_PS, 25, PctDivisor::Gamma);
    for (k, owd) in train_25().into_iter().enumerate() {
        by_gamma.observe(k as i64 * GAP_PS, k as i64 * GAP_PS + owd);
    }
    assert_eq!(by_gamma.last_trend().map(|t| t.pct), Some(0.6));
}

#[test]
fn pathload_baseline_spans_trains_and_leftovers_are_dropped() {
    // K = 27: groups of ⌊√27⌋ = 5, Γ = 5, the last 2 datagrams of each train
    // fill no group. Train 1: medians 0..4 pkts (+ two huge leftovers that
    // must not count); train 2: flat at 2 pkts, above train 1's lowest (0).
    let mut owd: Vec<i64> = (0..25).map(|k| (k / 5) * SVC_PS).collect();
    owd.extend([1_000_000, 1_000_000]);
    owd.extend(std::iter::repeat_n(2 * SVC_PS, 27));
    let mut model = Model::Pathload(Pathload::with(SVC_PS, 27, PctDivisor::default()));
    let got = feed(&mut model, &owd);
    assert_eq!(
        got,
        vec![
            (
                26,
                Estimate {
                    depth_pkts: 4.0,
                    trend: Trend::Increasing
                }
            ),
            (
                53,
                Estimate {
                    depth_pkts: 2.0,
                    trend: Trend::NoTrend
                }
            )
        ]
    );
}

#[test]
fn pathload_ramp_default_train() {
    // K = 100, groups of 10: medians (10g + 4.5) pkts; last 94.5 above the
    // lowest 4.5: depth 90.
    let mut m = Model::new(ModelKind::Pathload, SVC_PS);
    let got = feed(&mut m, &ramp(100));
    assert_eq!(
        got,
        vec![(
            99,
            Estimate {
                depth_pkts: 90.0,
                trend: Trend::Increasing
            }
        )]
    );
}

#[test]
fn median5_groups_window_and_baseline() {
    // Group 0: relative delays 0, 500, −200, 100, 300 → median 100.
    // Groups 1..=9: all five at g·1000 → medians 1000..9000.
    // Groups 10..=14: flat at 9000; groups 15..=19: flat at 9000.
    let mut owd = vec![0, 500, -200, 100, 300];
    for g in 1..20i64 {
        owd.extend([g.min(9) * SVC_PS; 5]);
    }
    let mut m = Model::Median5(Median5::new(SVC_PS));
    let got = feed(&mut m, &owd);
    assert_eq!(got.len(), 20);
    let at = |g: usize| got[g].1;
    assert_eq!(got[0].0, 4);
    // One median: depth 0 above itself, trend Unknown (fewer than 5).
    assert_eq!(
        at(0),
        Estimate {
            depth_pkts: 0.0,
            trend: Trend::Unknown
        }
    );
    assert_eq!(at(3).trend, Trend::Unknown);
    // Fifth median (4000): window 100, 1000 … 4000 rises; depth (4000 − 100)/1000.
    assert_eq!(
        at(4),
        Estimate {
            depth_pkts: 3.9,
            trend: Trend::Increasing
        }
    );
    assert_eq!(at(9).depth_pkts, 8.9);
    // Group 14: window 5000..9000 then 9000 ×5: PCT 4/9, PDT 4000/4000 = 1.
    assert_eq!(at(14).trend, Trend::Increasing);
    // Group 19: ten medians of 9000: PCT 0, PDT 0, no trend; depth stays.
    assert_eq!(
        at(19),
        Estimate {
            depth_pkts: 8.9,
            trend: Trend::NoTrend
        }
    );
}

#[test]
fn median5_ramp_depth() {
    // OWD_k = k pkts: group g's median is datagram 5g + 2, relative to
    // datagram 0; baseline the first median (2): depth 5g.
    let mut m = Model::new(ModelKind::Median5, SVC_PS);
    let depths: Vec<f64> = feed(&mut m, &ramp(30))
        .into_iter()
        .map(|(_, e)| e.depth_pkts)
        .collect();
    assert_eq!(depths, vec![0.0, 5.0, 10.0, 15.0, 20.0, 25.0]);
}

#[test]
fn median5_filters_one_outlier_per_group() {
    // One datagram in each group of five delayed by 50 packets (noise): the
    // medians never see it.
    let owd: Vec<i64> = (0..50)
        .map(|k| if k % 5 == 3 { 50 * SVC_PS } else { 0 })
        .collect();
    let mut m = Model::new(ModelKind::Median5, SVC_PS);
    let got = feed(&mut m, &owd);
    assert!(got.iter().all(|(_, e)| e.depth_pkts == 0.0));
    assert_eq!(got.last().map(|(_, e)| e.trend), Some(Trend::NoTrend));
}
