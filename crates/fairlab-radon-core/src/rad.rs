//! The RAD model on one stream (seed §4.1, §4.4): a reservation (u, p), its
//! budget e = u·p, jobs released every period with deadline d = r + p, the
//! budget left in the current job e′, laxity l = d − t − e′, %laxity and
//! %budget.

/// A stream's reservation: network-time utilization `u` of its bottleneck and
/// the period `p` over which `u` is guaranteed.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Reservation {
    /// Fraction of the link's time the stream may use, in [0, 1].
    pub utilization: f64,
    /// Reservation granularity.
    pub period_ps: i64,
}

impl Reservation {
    /// u = rate / capacity. Both rates must count the same bytes (payload or
    /// wire); which one is the caller's reading.
    pub fn from_rate(rate_bps: f64, capacity_bps: f64, period_ps: i64) -> Reservation {
        Reservation {
            utilization: rate_bps / capacity_bps,
            period_ps,
        }
    }

    /// The budget e = u·p, rounded to the nearest picosecond.
    pub fn budget_ps(&self) -> i64 {
        (self.utilization * self.period_ps as f64).round() as i64
    }
}

/// Which budget %budget divides by the time left to the deadline.
///
/// The seed defines %budget as 1 − %laxity, which works out to e′/(d − t)
/// (the budget still left), and in the same sentence writes it as e/(d − t)
/// (the whole budget). Both are offered; `Remaining` is the default because
/// it is the one that equals 1 − %laxity.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
pub enum BudgetReading {
    /// e′/(d − t): the seed's definition through %laxity (default).
    #[default]
    Remaining,
    /// e/(d − t): the seed's literal right-hand side.
    Full,
}

/// A stream's job bookkeeping: which job (period) is current, and how much of
/// its budget is left.
#[derive(Clone, Debug, PartialEq)]
pub struct Rad {
    reservation: Reservation,
    budget_ps: i64,
    packet_service_ps: i64,
    release_ps: i64,
    budget_left_ps: i64,
}

impl Rad {
    /// The first job is released at `start_ps` with its whole budget.
    /// `packet_service_ps` is pktS, the worst-case service time of one packet
    /// (wire bytes / capacity); values below 1 ps are taken as 1 ps so that
    /// m = e/pktS stays defined.
    pub fn new(res: Reservation, packet_service_ps: i64, start_ps: i64) -> Rad {
        let budget_ps = res.budget_ps().max(0);
        Rad {
            reservation: res,
            budget_ps,
            packet_service_ps: packet_service_ps.max(1),
            release_ps: start_ps,
            budget_left_ps: budget_ps,
        }
    }

    /// Rolls forward to the job whose period holds `now_ps`: r is the latest
    /// release r₀ + k·p ≤ now, d = r + p, and a new job starts with e′ = e.
    /// Time never runs backward here: a `now_ps` before the current release,
    /// or a period ≤ 0, changes nothing.
    pub fn advance(&mut self, now_ps: i64) {
        let period_ps = self.reservation.period_ps;
        if period_ps <= 0 || now_ps < self.release_ps + period_ps {
            return;
        }
        let periods = (now_ps - self.release_ps) / period_ps;
        self.release_ps += periods * period_ps;
        self.budget_left_ps = self.budget_ps;
    }

    /// A packet sent spends `service_ps` of the budget left (never below 0).
    pub fn charge(&mut self, service_ps: i64) {
        self.budget_left_ps = (self.budget_left_ps - service_ps).max(0);
    }

    /// The reservation this bookkeeping follows.
    pub fn reservation(&self) -> Reservation {
        self.reservation
    }

    /// pktS.
    pub fn packet_service_ps(&self) -> i64 {
        self.packet_service_ps
    }

    /// r of the current job.
    pub fn release_ps(&self) -> i64 {
        self.release_ps
    }

    /// d = r + p of the current job.
    pub fn deadline_ps(&self) -> i64 {
        self.release_ps + self.reservation.period_ps
    }

    /// e, the whole budget of a job.
    pub fn budget_ps(&self) -> i64 {
        self.budget_ps
    }

    /// e′, the budget left in the current job.
    pub fn budget_left_ps(&self) -> i64 {
        self.budget_left_ps
    }

    /// The flow-control budget m = e/pktS in whole packets (rounded down: a
    /// packet that does not fit in what is left of the budget is not sent).
    pub fn budget_packets(&self) -> u64 {
        (self.budget_ps / self.packet_service_ps) as u64
    }

    /// Whole packets e′ still pays for.
    pub fn budget_left_packets(&self) -> u64 {
        (self.budget_left_ps / self.packet_service_ps) as u64
    }

    /// l = d − t − e′. Negative when the rest of the budget no longer fits
    /// before the deadline. Call [`Rad::advance`] first.
    pub fn laxity_ps(&self, now_ps: i64) -> i64 {
        self.deadline_ps() - now_ps - self.budget_left_ps
    }

    /// %laxity = l/(d − t), clamped to [0, 1]. Reading: a negative laxity (the
    /// job can no longer finish) is the most urgent, 0; at or past the
    /// deadline (d − t ≤ 0, only if [`Rad::advance`] was not called) it is 0.
    pub fn pct_laxity(&self, now_ps: i64) -> f64 {
        let left_ps = self.deadline_ps() - now_ps;
        if left_ps <= 0 {
            return 0.0;
        }
        (self.laxity_ps(now_ps) as f64 / left_ps as f64).clamp(0.0, 1.0)
    }

    /// %budget: e′/(d − t) (`Remaining`, = 1 − %laxity) or e/(d − t)
    /// (`Full`), clamped to [0, 1]; 1 at or past the deadline.
    pub fn pct_budget(&self, now_ps: i64, reading: BudgetReading) -> f64 {
        let left_ps = self.deadline_ps() - now_ps;
        if left_ps <= 0 {
            return 1.0;
        }
        let budget_ps = match reading {
            BudgetReading::Remaining => self.budget_left_ps,
            BudgetReading::Full => self.budget_ps,
        };
        (budget_ps as f64 / left_ps as f64).clamp(0.0, 1.0)
    }
}
