//! What this machine's memory allows a packet-hop: the latency of one
//! cache line read after another (a pointer chase), and the time per line
//! when many independent lines are read with prefetch hints ahead (the
//! best a simulator's prefetcher can do), for working sets from the
//! second-level cache's size to far beyond the last level's. A fat tree's
//! hop reads lines scattered over its working set (BENCHMARKS.md, "Scale":
//! about fifteen per k = 16 hop, outside a 512 KiB cache), so the second
//! figure times those lines is a floor under its cost per hop that no
//! order of hints lowers; only fewer lines do.
//!
//! ```text
//! cargo run --release -p fairlab-sim --example memory_floor [LINES_PER_HOP]
//! ```
//!
//! Last, chases through 64 MiB side by side: how many lines the core keeps
//! in flight (where adding chains stops lowering the time per line).
//!
//! Same allocator and huge pages as the extension and the other examples.

#[path = "../../fairlab-py/src/alloc.rs"]
mod alloc;

use fairlab_sim::engine::{prefetch, Rng};
use std::time::Instant;

const LINE: usize = 64;
/// Words of 8 bytes per line.
const WORDS: usize = LINE / 8;
/// How many reads ahead the gather hints (enough to fill the core's miss
/// buffers: 16 and 32 gave the same figures on this project's machines).
const AHEAD: usize = 32;

/// Working sets measured, in KiB: the second-level cache of this
/// project's machines (512 KiB), past it, up to four times a k = 16 fat
/// tree's hot set and beyond.
const SIZES_KIB: [usize; 7] = [
    256,
    1 << 10,
    4 << 10,
    16 << 10,
    32 << 10,
    64 << 10,
    256 << 10,
];

/// `lines` lines holding one random cycle through all of them (Sattolo's
/// shuffle): each line's first word is the next line's first word's index.
fn cycle(lines: usize, rng: &mut Rng) -> Vec<u64> {
    let mut order: Vec<usize> = (0..lines).collect();
    for i in (1..lines).rev() {
        order.swap(i, rng.below_inclusive(i as u64 - 1) as usize);
    }
    let mut mem = vec![0u64; lines * WORDS];
    for i in 0..lines {
        mem[order[i] * WORDS] = (order[(i + 1) % lines] * WORDS) as u64;
    }
    mem
}

/// Nanoseconds per line of `chains` chases side by side through the
/// cycle `mem`, started evenly apart: each read waits for its chain's last,
/// the chains overlap (one chain: the latency of a line).
fn chase_ns<const CHAINS: usize>(mem: &[u64]) -> f64 {
    let mut at = [0usize; CHAINS];
    for c in 1..CHAINS {
        // Walk to the chain's start: a run of the cycle apart from the last.
        at[c] = at[c - 1];
        for _ in 0..mem.len() / WORDS / CHAINS {
            at[c] = mem[at[c]] as usize;
        }
    }
    let steps = 4_000_000 / CHAINS;
    let t = Instant::now();
    for _ in 0..steps {
        for a in at.iter_mut() {
            *a = mem[*a] as usize;
        }
    }
    let ns = t.elapsed().as_secs_f64() * 1e9 / (steps * CHAINS) as f64;
    std::hint::black_box(at);
    ns
}

/// Nanoseconds per line of independent reads of random lines among
/// `lines`, each hinted [`AHEAD`] reads before it is read.
fn gather_ns(lines: usize, rng: &mut Rng) -> f64 {
    let mem: Vec<u64> = (0..(lines * WORDS) as u64).collect();
    let reads = 8_000_000;
    let at: Vec<u32> = (0..reads)
        .map(|_| rng.below_inclusive(lines as u64 - 1) as u32)
        .collect();
    let mut sum = 0u64;
    let t = Instant::now();
    for i in 0..reads {
        if let Some(&a) = at.get(i + AHEAD) {
            prefetch(mem.as_ptr().wrapping_add(a as usize * WORDS));
        }
        sum = sum.wrapping_add(mem[at[i] as usize * WORDS]);
    }
    let ns = t.elapsed().as_secs_f64() * 1e9 / reads as f64;
    std::hint::black_box(sum);
    ns
}

fn main() {
    alloc::use_huge_pages();
    let per_hop: Option<f64> = std::env::args().nth(1).map(|a| {
        a.parse()
            .unwrap_or_else(|_| panic!("LINES_PER_HOP: a number, not {a:?}"))
    });
    // A fixed stream, so that every run reads the same lines.
    let mut rng = Rng::new(1);
    println!("working set | chase, ns per line | gather with hints, ns per line");
    for kib in SIZES_KIB {
        let lines = kib * 1024 / LINE;
        let (c, g) = (
            chase_ns::<1>(&cycle(lines, &mut rng)),
            gather_ns(lines, &mut rng),
        );
        match per_hop {
            Some(n) => println!(
                "{kib:>8} KiB | {c:>6.1} | {g:>6.1} (x {n} lines: {:.0} ns per hop)",
                g * n
            ),
            None => println!("{kib:>8} KiB | {c:>6.1} | {g:>6.1}"),
        }
    }
    // How many lines in flight the core keeps: chains side by side.
    let mem = cycle((64 << 20) / LINE, &mut rng);
    let per_line = [
        (1, chase_ns::<1>(&mem)),
        (2, chase_ns::<2>(&mem)),
        (4, chase_ns::<4>(&mem)),
        (8, chase_ns::<8>(&mem)),
        (16, chase_ns::<16>(&mem)),
        (32, chase_ns::<32>(&mem)),
    ];
    println!("64 MiB, chains side by side: ns per line");
    for (chains, ns) in per_line {
        println!("{chains:>8} | {ns:>6.1}");
    }
}
