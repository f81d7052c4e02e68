use fairlab_radon_core::{
    BudgetReading, Rad, RateResponse, Reservation, WaitMinReading, WaitReading, WindowResponse,
    WindowRule,
};

const MS: i64 = 1_000_000_000;
/// 8192 B at 500 Mb/s: 8192·8 / 5e8 s = 131.072 µs.
const WAIT_MIN_PS: i64 = 131_072_000;

fn rate(wait: WaitReading) -> RateResponse {
    RateResponse {
        wait_min_ps: WAIT_MIN_PS,
        wait_max_ps: 10 * MS,
        wait,
        budget: BudgetReading::Remaining,
    }
}

#[test]
fn wait_min_is_the_reservations_pace() {
    let res = Reservation::from_rate(500e6, 1e9, 10 * MS);
    assert_eq!(
        RateResponse::reservation_wait_ps(8192.0, &res, 1e9),
        WAIT_MIN_PS
    );
    let r = RateResponse::for_reservation(8192.0, &res, 1e9);
    assert_eq!((r.wait_min_ps, r.wait_max_ps), (WAIT_MIN_PS, 10 * MS));
    assert_eq!(
        (r.wait, r.budget),
        (WaitReading::Halfway, BudgetReading::Remaining)
    );
    // The line-rate reading: one 8258-byte wire frame at 1 Gb/s, 66.064 µs.
    let pace =
        RateResponse::wait_min_for(WaitMinReading::ReservationPace, 8192.0, 8258.0, &res, 1e9);
    let line = RateResponse::wait_min_for(WaitMinReading::LineRate, 8192.0, 8258.0, &res, 1e9);
    assert_eq!((pace, line), (WAIT_MIN_PS, 66_064_000));
    assert_eq!(RateResponse::with_wait_min(line, &res).wait_max_ps, 10 * MS);
}

#[test]
fn percent_budget_wait_moves_halfway_and_clamps() {
    let r = rate(WaitReading::Halfway);
    // Congested at %budget 0.5: w_op = 131.072 / 0.5 = 262.144 µs; halfway
    // from 131.072: 196.608; again: 229.376.
    let w1 = r.next_wait_ps(WAIT_MIN_PS, 0.5, true);
    assert_eq!(w1, 196_608_000);
    let w2 = r.next_wait_ps(w1, 0.5, true);
    assert_eq!(w2, 229_376_000);
    // Not congested: w_op = wait_min; halfway from 229.376: 180.224.
    assert_eq!(r.next_wait_ps(w2, 0.5, false), 180_224_000);
    // %budget 0.01: w_op = 13.1072 ms; from 10 ms halfway is 11.5536 ms,
    // clamped to wait_max.
    assert_eq!(r.next_wait_ps(10 * MS, 0.01, true), 10 * MS);
    // Budget spent: w_op = wait_max; from wait_min halfway.
    assert_eq!(
        r.next_wait_ps(WAIT_MIN_PS, 0.0, true),
        (WAIT_MIN_PS + 10 * MS) / 2
    );
    // Below wait_min is clamped up even when not congested.
    assert_eq!(r.next_wait_ps(1_000, 1.0, false), WAIT_MIN_PS);
}

#[test]
fn seed_literal_clamp_always_gives_wait_min() {
    let r = rate(WaitReading::SeedLiteral);
    for (wait, pct, congested) in [
        (WAIT_MIN_PS, 0.5, true),
        (5 * MS, 0.01, true),
        (MS, 1.0, false),
    ] {
        assert_eq!(r.next_wait_ps(wait, pct, congested), WAIT_MIN_PS);
    }
}

/// u = 0.5, p = 10 000 ps, pktS = 100 ps: e = 5000 ps, m = 50 packets.
fn small_rad() -> Rad {
    Rad::new(
        Reservation {
            utilization: 0.5,
            period_ps: 10_000,
        },
        100,
        0,
    )
}

fn window(rule: WindowRule) -> WindowResponse {
    WindowResponse {
        rule,
        w_max: 40.0,
        w_min: 1.0,
    }
}

#[test]
fn percent_budget_window() {
    let rad = small_rad();
    let pb = window(WindowRule::PercentBudget);
    // t = 0: l = 10000 − 5000 = 5000, %laxity 0.5, w_op = 0.5·40 = 20;
    // halfway from 40: 30.
    assert_eq!(pb.operating_window(&rad, 0, true), 20.0);
    assert_eq!(pb.next_window(40.0, &rad, 0, true), 30.0);
    // t = 5000: l = 0, %laxity 0, w_op = 40; from 10: 25.
    assert_eq!(pb.next_window(10.0, &rad, 5_000, true), 25.0);
    // Not congested: w_op = w_max.
    assert_eq!(pb.next_window(10.0, &rad, 0, false), 25.0);
}

#[test]
fn less_laxity_more_window() {
    let rad = small_rad();
    let llm = window(WindowRule::LessLaxityMore);
    // t = 0: l = 5000/100 = 50 packet times; 40/51 < 2 → 2; min(m = 50, 2).
    assert_eq!(llm.operating_window(&rad, 0, true), 2.0);
    assert_eq!(llm.next_window(40.0, &rad, 0, true), 21.0);
    // t = 4000: l = 10 → 40/11 = 3.636…
    let w_op = llm.operating_window(&rad, 4_000, true);
    assert!((w_op - 40.0 / 11.0).abs() < 1e-12, "{w_op}");
    // t = 7000: l = −2000 taken as 0: min(50, 40) = 40.
    assert_eq!(llm.operating_window(&rad, 7_000, true), 40.0);
    // m caps: w_max 80 at l = 0 gives min(50, 80) = 50.
    let wide = WindowResponse { w_max: 80.0, ..llm };
    assert_eq!(wide.operating_window(&rad, 5_000, true), 50.0);
}

#[test]
fn window_bounded_by_w_min_and_remaining_budget() {
    let mut rad = small_rad();
    let pb = WindowResponse {
        rule: WindowRule::PercentBudget,
        w_max: 40.0,
        w_min: 12.0,
    };
    // t = 0, w = 12: w_op 20, halfway 16.
    assert_eq!(pb.next_window(12.0, &rad, 0, true), 16.0);
    // e′ spent down to 1000 ps at t = 0: %laxity 0.9, w_op 4, halfway from 12
    // = 8, raised to w_min 12, cut to the 10 packets e′ pays for.
    rad.charge(4_000);
    assert_eq!(pb.next_window(12.0, &rad, 0, true), 10.0);
    rad.charge(1_000);
    assert_eq!(pb.next_window(12.0, &rad, 0, false), 0.0);
}

#[test]
fn dispatch_offset() {
    // N_obs·pktS·rand: 3 packets · 66.064 µs · 0.5 = 99.096 µs.
    assert_eq!(
        WindowResponse::dispatch_offset_ps(3.0, 66_064_000, 0.5),
        99_096_000
    );
    assert_eq!(WindowResponse::dispatch_offset_ps(3.0, 66_064_000, 0.0), 0);
    assert_eq!(WindowResponse::dispatch_offset_ps(-2.0, 66_064_000, 0.9), 0);
}
