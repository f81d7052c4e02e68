use fairlab_radon_core::{
    BudgetReading, Dispatch, Feedback, Mode, RateResponse, Reservation, Sender, SenderConfig,
    Trend, WaitReading, WindowResponse, WindowRule,
};

const MS: i64 = 1_000_000_000;
const PKT_S_PS: i64 = 66_064_000;
const WAIT_MIN_PS: i64 = 131_072_000;

fn feedback(frame: u64, depth_milli_pkts: i64, congested: bool) -> Feedback {
    Feedback {
        frame,
        depth_milli_pkts,
        trend: Trend::Unknown,
        congested,
        received: frame + 1,
        lost: 0,
    }
}

fn send(packets: u32, next_ps: i64) -> Dispatch {
    Dispatch { packets, next_ps }
}

#[test]
fn non_adaptive_is_a_fixed_wait() {
    let cfg = SenderConfig {
        reservation: Reservation::from_rate(765e6, 1e9, 10 * MS),
        packet_service_ps: PKT_S_PS,
        wait_ps: 84_000_000,
        mode: Mode::NonAdaptive,
    };
    let mut s = Sender::new(cfg, 1_000);
    assert_eq!(s.poll(0, 0.3), send(0, 1_000));
    assert_eq!(s.poll(1_000, 0.3), send(1, 84_001_000));
    assert_eq!(s.poll(50_000_000, 0.3), send(0, 84_001_000));
    s.on_feedback(60_000_000, &feedback(0, 9_000, true));
    assert_eq!(s.poll(84_001_000, 0.3), send(1, 168_001_000));
    assert_eq!((s.sent(), s.wait_ps(), s.window()), (2, 84_000_000, 1.0));
    // Charged for the record: two packets of the budget.
    assert_eq!(s.rad().budget_left_ps(), s.rad().budget_ps() - 2 * PKT_S_PS);
}

fn rate_sender(budget: BudgetReading) -> Sender {
    let res = Reservation::from_rate(500e6, 1e9, 10 * MS);
    let response = RateResponse {
        wait_min_ps: WAIT_MIN_PS,
        wait_max_ps: 10 * MS,
        wait: WaitReading::Halfway,
        budget,
    };
    let cfg = SenderConfig {
        reservation: res,
        packet_service_ps: PKT_S_PS,
        wait_ps: WAIT_MIN_PS,
        mode: Mode::Rate(response),
    };
    Sender::new(cfg, 0)
}

#[test]
fn rate_mode_steers_the_wait_by_percent_budget() {
    // One packet sent at 0; congested feedback at 1 ms.
    // Full: %budget = 5/9, w_op = 131.072·9/5 = 235.9296 µs, halfway 183.5008.
    let mut full = rate_sender(BudgetReading::Full);
    assert_eq!(full.poll(0, 0.0), send(1, WAIT_MIN_PS));
    full.on_feedback(MS, &feedback(0, 2_000, true));
    assert_eq!(full.wait_ps(), 183_500_800);
    // Remaining: e′ = 5 ms − 66.064 µs = 4.933936 ms, %budget = e′/9 ms,
    // w_op = 131.072 µs · 9 / 4.933936 = 239.08863 µs, halfway 185.080315 µs.
    let mut remaining = rate_sender(BudgetReading::Remaining);
    remaining.poll(0, 0.0);
    remaining.on_feedback(MS, &feedback(0, 2_000, true));
    assert_eq!(remaining.wait_ps(), 185_080_315);
    // The pending send keeps its time; the new wait starts after it.
    assert_eq!(
        remaining.poll(WAIT_MIN_PS, 0.0),
        send(1, WAIT_MIN_PS + 185_080_315)
    );
    // Not congested: back halfway toward wait_min.
    remaining.on_feedback(2 * MS, &feedback(5, 0, false));
    assert_eq!(remaining.wait_ps(), (185_080_315 + WAIT_MIN_PS + 1) / 2);
}

#[test]
fn older_feedback_is_ignored() {
    let mut s = rate_sender(BudgetReading::Full);
    s.poll(0, 0.0);
    s.on_feedback(MS, &feedback(10, 2_000, true));
    let after = s.wait_ps();
    s.on_feedback(MS, &feedback(9, 0, false));
    assert_eq!(s.wait_ps(), after);
}

/// u = 0.5, p = 10 000 ps, pktS = 100 ps (e = 5000 ps, m = 50), wait 200 ps.
fn window_sender(w_max: f64, wait_ps: i64) -> Sender {
    let cfg = SenderConfig {
        reservation: Reservation {
            utilization: 0.5,
            period_ps: 10_000,
        },
        packet_service_ps: 100,
        wait_ps,
        mode: Mode::Window(WindowResponse {
            rule: WindowRule::PercentBudget,
            w_max,
            w_min: 1.0,
        }),
    };
    Sender::new(cfg, 0)
}

#[test]
fn window_mode_enforces_the_budget() {
    // Slots of 8·200 = 1600 ps, 8 packets each: 0, 1600, … 8000 spend 48 of
    // the 50; at 9600 only 2 are paid for; at 11200 a new job has begun.
    let mut s = window_sender(8.0, 200);
    let mut got = Vec::new();
    let mut now = 0;
    for _ in 0..8 {
        let d = s.poll(now, 0.5);
        got.push(d);
        now = d.next_ps;
    }
    let expected: Vec<Dispatch> = [8, 8, 8, 8, 8, 8, 2, 8]
        .iter()
        .zip(1..)
        .map(|(&p, k)| send(p, k * 1_600))
        .collect();
    assert_eq!(got, expected);
    assert_eq!(s.sent(), 58);
}

#[test]
fn window_mode_waits_for_the_next_release_when_spent() {
    // Slots of 10·100 = 1000 ps, 10 packets: five slots spend e; at 5000
    // nothing is paid for and the sender waits for the release at 10 000.
    let mut s = window_sender(10.0, 100);
    for k in 0..5 {
        assert_eq!(s.poll(k * 1_000, 0.0), send(10, (k + 1) * 1_000));
    }
    assert_eq!(s.poll(5_000, 0.0), send(0, 10_000));
    assert_eq!(s.poll(10_000, 0.0), send(10, 11_000));
}

#[test]
fn window_mode_shrinks_and_offsets_on_congestion() {
    let mut s = window_sender(8.0, 200);
    assert_eq!(s.poll(0, 0.0), send(8, 1_600));
    // At 1000: e′ = 4200, l = 9000 − 4200 = 4800, %laxity 4800/9000,
    // w_op = (4200/9000)·8 = 3.7333; halfway from 8: 5.8667.
    s.on_feedback(1_000, &feedback(7, 3_000, true));
    assert!((s.window() - (8.0 + 4200.0 / 9000.0 * 8.0) / 2.0).abs() < 1e-12);
    // Next slot: ⌊5.87⌋ = 5 packets; offset 3 pkts · 100 ps · 0.5 = 150.
    assert_eq!(s.poll(1_600, 0.5), send(5, 1_600 + 1_600 + 150));
}
