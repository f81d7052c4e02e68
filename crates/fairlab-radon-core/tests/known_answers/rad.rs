use crate::assert_close;
use fairlab_radon_core::{rfd_ps, BudgetReading, Rad, Reservation};

const MS: i64 = 1_000_000_000;
/// 8258 wire bytes at 1 Gb/s: 66.064 µs.
const PKT_S_PS: i64 = 66_064_000;

fn half_of_10ms() -> Rad {
    Rad::new(Reservation::from_rate(500e6, 1e9, 10 * MS), PKT_S_PS, 0)
}

#[test]
fn reservation_from_rate_and_budget() {
    let res = Reservation::from_rate(500e6, 1e9, 10 * MS);
    assert_close(res.utilization, 0.5, 1e-15);
    assert_eq!(res.budget_ps(), 5 * MS);
}

#[test]
fn flow_control_budget_rounds_down() {
    // m = 5 ms / 66.064 µs = 75.68…: 75 whole packets.
    assert_eq!(half_of_10ms().budget_packets(), 75);
}

#[test]
fn laxity_at_given_instants() {
    let mut rad = half_of_10ms();
    // t = 2 ms, e′ = e = 5 ms: l = 10 − 2 − 5 = 3 ms; %laxity 3/8; %budget 5/8.
    assert_eq!(rad.laxity_ps(2 * MS), 3 * MS);
    assert_close(rad.pct_laxity(2 * MS), 0.375, 1e-12);
    assert_close(
        rad.pct_budget(2 * MS, BudgetReading::Remaining),
        0.625,
        1e-12,
    );
    assert_close(rad.pct_budget(2 * MS, BudgetReading::Full), 0.625, 1e-12);
    // Ten packets sent: e′ = 5 ms − 660.64 µs = 4.33936 ms.
    for _ in 0..10 {
        rad.charge(PKT_S_PS);
    }
    assert_eq!(rad.budget_left_ps(), 4_339_360_000);
    assert_eq!(rad.laxity_ps(2 * MS), 3_660_640_000);
    assert_close(
        rad.pct_budget(2 * MS, BudgetReading::Remaining),
        0.54242,
        1e-12,
    );
    assert_close(rad.pct_budget(2 * MS, BudgetReading::Full), 0.625, 1e-12);
    assert_close(rad.pct_laxity(2 * MS), 1.0 - 0.54242, 1e-12);
}

#[test]
fn negative_laxity_is_most_urgent() {
    let rad = half_of_10ms();
    // t = 7 ms, e′ = 5 ms: l = −2 ms; %laxity clamps to 0, %budget 5/3 to 1.
    assert_eq!(rad.laxity_ps(7 * MS), -2 * MS);
    assert_eq!(rad.pct_laxity(7 * MS), 0.0);
    assert_eq!(rad.pct_budget(7 * MS, BudgetReading::Remaining), 1.0);
}

#[test]
fn advance_rolls_to_the_job_holding_now() {
    let mut rad = half_of_10ms();
    rad.charge(3 * MS);
    rad.advance(9 * MS);
    assert_eq!((rad.release_ps(), rad.budget_left_ps()), (0, 2 * MS));
    rad.advance(25 * MS);
    assert_eq!(rad.release_ps(), 20 * MS);
    assert_eq!(rad.deadline_ps(), 30 * MS);
    assert_eq!(rad.budget_left_ps(), 5 * MS);
    rad.charge(MS);
    rad.advance(21 * MS); // same job: nothing changes
    rad.advance(5 * MS); // the past: nothing changes
    assert_eq!((rad.release_ps(), rad.budget_left_ps()), (20 * MS, 4 * MS));
}

#[test]
fn charge_never_goes_below_zero() {
    let mut rad = half_of_10ms();
    rad.charge(6 * MS);
    assert_eq!(rad.budget_left_ps(), 0);
    assert_eq!(rad.budget_left_packets(), 0);
    // No budget: %budget 0 and %laxity 1.
    assert_eq!(rad.pct_budget(MS, BudgetReading::Remaining), 0.0);
    assert_eq!(rad.pct_laxity(MS), 1.0);
}

#[test]
fn rfd_of_two_datagrams() {
    // S 0 → R 100, S 10 → R 120: (120 − 100) − (10 − 0) = 10.
    assert_eq!(rfd_ps(0, 100, 10, 120), 10);
    // A constant clock offset cancels.
    assert_eq!(rfd_ps(0, 100 + 7_000, 10, 120 + 7_000), 10);
    assert_eq!(rfd_ps(0, 100, 10, 105), -5);
}
