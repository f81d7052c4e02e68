//! Clocks and waits. Pacing runs on CLOCK_MONOTONIC (never steps); send
//! stamps are CLOCK_REALTIME, the clock the kernel's receive stamps use, so
//! on one machine receive minus send is the true one-way delay (between
//! machines only differences of it mean anything, which is all RFD needs).

use crate::error::{from_io, os_error, Result};

fn read(clock: libc::clockid_t) -> i64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: ts is a valid out-pointer; these clocks exist on every Linux.
    unsafe { libc::clock_gettime(clock, &mut ts) };
    timespec_ns(&ts)
}

/// A timespec as ns (the casts are no-ops on 64-bit Linux, widenings on
/// 32-bit).
#[allow(clippy::unnecessary_cast)]
pub fn timespec_ns(ts: &libc::timespec) -> i64 {
    ts.tv_sec as i64 * 1_000_000_000 + ts.tv_nsec as i64
}

/// CLOCK_MONOTONIC, ns.
pub fn monotonic_ns() -> i64 {
    read(libc::CLOCK_MONOTONIC)
}

/// CLOCK_REALTIME, ns.
pub fn realtime_ns() -> i64 {
    read(libc::CLOCK_REALTIME)
}

/// This thread's CPU time, ns.
pub fn thread_cpu_ns() -> i64 {
    read(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// Spins until CLOCK_MONOTONIC reaches `until_ns`; returns the instant it
/// saw (the start of the send).
#[inline]
pub fn spin_until(until_ns: i64) -> i64 {
    loop {
        let now = monotonic_ns();
        if now >= until_ns {
            return now;
        }
        std::hint::spin_loop();
    }
}

/// Sleeps (absolute CLOCK_MONOTONIC) until `until_ns`, if it is ahead.
pub fn sleep_until(until_ns: i64) {
    if until_ns <= monotonic_ns() {
        return;
    }
    let ts = libc::timespec {
        tv_sec: (until_ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (until_ns % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: valid timespec; an EINTR just returns early, and the caller
    // spins the rest.
    unsafe {
        libc::clock_nanosleep(
            libc::CLOCK_MONOTONIC,
            libc::TIMER_ABSTIME,
            &ts,
            std::ptr::null_mut(),
        )
    };
}

/// Hybrid wait: sleep until `margin_ns` before `until_ns`, spin the rest.
pub fn hybrid_until(until_ns: i64, margin_ns: i64) -> i64 {
    sleep_until(until_ns - margin_ns);
    spin_until(until_ns)
}

/// Sets this thread's timer slack to 1 ns (the default 50 µs would make
/// every sleep late by up to that); returns the previous slack.
pub fn set_timer_slack_ns(slack_ns: u64) -> u64 {
    // SAFETY: PR_GET/SET_TIMERSLACK take plain integers.
    let old = unsafe { libc::prctl(libc::PR_GET_TIMERSLACK, 0, 0, 0, 0) };
    unsafe { libc::prctl(libc::PR_SET_TIMERSLACK, slack_ns as libc::c_ulong, 0, 0, 0) };
    old.max(0) as u64
}

/// The machine's online cores (not the calling thread's affinity: a
/// pinned thread still reports the machine).
pub fn online_cores() -> usize {
    // SAFETY: sysconf has no preconditions.
    let n = unsafe { libc::sysconf(libc::_SC_NPROCESSORS_ONLN) };
    if n > 0 {
        n as usize
    } else {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    }
}

/// The calling thread's affinity, to put back after a pinned run.
pub struct Pin {
    old: libc::cpu_set_t,
}

impl Pin {
    /// Pins the calling thread to `cpu`.
    pub fn to(cpu: usize) -> Result<Pin> {
        // SAFETY: cpu_set_t is plain data; CPU_* index within its size
        // (checked below); pid 0 is the calling thread.
        unsafe {
            let mut old: libc::cpu_set_t = std::mem::zeroed();
            let size = std::mem::size_of::<libc::cpu_set_t>();
            if libc::sched_getaffinity(0, size, &mut old) != 0 {
                return Err(from_io("sched_getaffinity", &os_error()));
            }
            if cpu >= 8 * size || !libc::CPU_ISSET(cpu, &old) {
                return Err(crate::error::Error::Config(format!(
                    "cpu = {cpu}: this process may run only on cores {}",
                    allowed(&old)
                )));
            }
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            libc::CPU_SET(cpu, &mut set);
            if libc::sched_setaffinity(0, size, &set) != 0 {
                return Err(from_io(&format!("pinning to cpu {cpu}"), &os_error()));
            }
            Ok(Pin { old })
        }
    }
}

fn allowed(set: &libc::cpu_set_t) -> String {
    let n = 8 * std::mem::size_of::<libc::cpu_set_t>();
    // SAFETY: i < the set's bit count.
    let cores: Vec<String> = (0..n)
        .filter(|&i| unsafe { libc::CPU_ISSET(i, set) })
        .map(|i| i.to_string())
        .collect();
    cores.join(",")
}

impl Drop for Pin {
    fn drop(&mut self) {
        // SAFETY: restores the set read in `to`.
        unsafe {
            libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &self.old);
        }
    }
}

/// The calling thread under SCHED_FIFO while alive; its old policy back
/// on drop. A spinning sender that other processes can preempt is late by
/// their whole time slice (milliseconds on a loaded machine); under
/// SCHED_FIFO only the kernel's real-time throttle (by default 50 ms a
/// second for everything else) takes the core from it.
pub struct RealTime {
    policy: libc::c_int,
    param: libc::sched_param,
}

impl RealTime {
    pub fn set(priority: i32) -> Result<RealTime> {
        if !(1..=99).contains(&priority) {
            return Err(crate::error::Error::Config(format!(
                "rt_priority = {priority}: from 1 to 99"
            )));
        }
        // SAFETY: pid 0 is the calling thread; param is plain data.
        unsafe {
            let policy = libc::sched_getscheduler(0);
            let mut param: libc::sched_param = std::mem::zeroed();
            libc::sched_getparam(0, &mut param);
            let new = libc::sched_param {
                sched_priority: priority,
            };
            if libc::sched_setscheduler(0, libc::SCHED_FIFO, &new) != 0 {
                let e = os_error();
                return Err(match e.raw_os_error() {
                    Some(libc::EPERM) => crate::error::Error::Capability(
                        "rt_priority needs CAP_SYS_NICE: run as root, or leave rt_priority out"
                            .into(),
                    ),
                    _ => from_io("sched_setscheduler", &e),
                });
            }
            Ok(RealTime { policy, param })
        }
    }
}

impl Drop for RealTime {
    fn drop(&mut self) {
        // SAFETY: restores what `set` read.
        unsafe { libc::sched_setscheduler(0, self.policy, &self.param) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spinning_reaches_the_instant_and_sleeping_does_not_overshoot_the_margin() {
        let t = monotonic_ns() + 200_000;
        assert!(spin_until(t) >= t);
        // Never early, every time.
        for _ in 0..3 {
            let t = monotonic_ns() + 2_000_000;
            assert!(hybrid_until(t, 500_000) >= t);
        }
        // Not late is a property of an unpreempted thread: cargo runs tests
        // in parallel on a shared machine, and one preemption can delay any
        // wait by milliseconds (CI saw 2.49 ms once). So the sleep must end
        // before its instant in at least one of several tries; a sleep to the
        // wrong instant or with a 50 µs-scale slack per try fails all of them.
        let tries: Vec<i64> = (0..8)
            .map(|_| {
                let t = monotonic_ns() + 2_000_000;
                sleep_until(t - 500_000);
                monotonic_ns() - t
            })
            .collect();
        assert!(tries.iter().any(|&late| late < 0), "{tries:?}");
        // An instant already past returns without sleeping.
        let before = monotonic_ns();
        sleep_until(before - 1_000_000_000);
        assert!(monotonic_ns() - before < 1_000_000_000);
        assert!(realtime_ns() > 1_500_000_000_000_000_000);
        assert!(thread_cpu_ns() > 0);
    }

    #[test]
    fn pinning_to_a_core_outside_the_set_names_the_allowed_ones() {
        let e = Pin::to(1000).err().expect("core 1000 refused");
        assert!(e.to_string().starts_with("cpu = 1000"), "{e}");
    }
}
