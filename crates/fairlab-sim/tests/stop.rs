//! A progress callback can stop a run part-way (how Ctrl-C reaches the
//! simulator from Python); a callback that never stops changes nothing.

use fairlab_sim::Scenario;
use std::ops::ControlFlow;

fn long_run() -> Scenario {
    Scenario::from_toml_str(
        r#"
duration = "5s"
[topology]
kind = "dumbbell"
left = 2
right = 2
rate = "1Gbps"
delay = "10us"
bottleneck_rate = "100Mbps"
bottleneck_delay = "100us"
[[workload]]
kind = "bulk"
src = "l0"
dst = "r0"
[[workload]]
kind = "bulk"
src = "l1"
dst = "r1"
"#,
    )
    .unwrap()
}

#[test]
fn a_callback_that_never_stops_gives_the_plain_runs_result() {
    let sc = long_run();
    let plain = fairlab_sim::run(&sc, None).unwrap();
    let mut calls = 0;
    let stoppable = fairlab_sim::run_until_stopped(&sc, None, &mut |_| {
        calls += 1;
        ControlFlow::Continue(())
    })
    .unwrap()
    .expect("not stopped");
    assert!(calls > 2, "progress called {calls} times");
    // The digest covers every bit of every table (NaNs make `==` useless here).
    assert_eq!(stoppable.digest(), plain.digest());
    assert_eq!(stoppable.summary.len(), plain.summary.len());
}

#[test]
fn a_callback_that_breaks_stops_the_run_at_its_next_call() {
    let sc = long_run();
    let mut calls = 0;
    let mut last = 0.0;
    let r = fairlab_sim::run_until_stopped(&sc, None, &mut |f| {
        calls += 1;
        last = f;
        if calls == 2 {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    })
    .unwrap();
    assert!(r.is_none());
    assert_eq!(calls, 2, "no call after the break");
    assert!(last > 0.0 && last < 1.0, "stopped part-way, at {last}");
}
