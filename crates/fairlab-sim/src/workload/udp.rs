//! Constant-rate UDP background traffic: the application opens its UDP flow
//! (a [`crate::transport::UdpFlow`], which paces the datagrams) at `start`
//! and lets it run; it never holds the run open.

use super::AppAction;
use crate::units::Time;

#[derive(Clone, Debug)]
pub struct Udp {
    /// The UDP flow's endpoint.
    pub flow: u32,
    pub start: Time,
}

impl Udp {
    pub fn new(flow: u32, start: Time) -> Udp {
        Udp { flow, start }
    }

    pub fn start(&mut self, acts: &mut Vec<AppAction>) {
        acts.push(AppAction::Connect { conn: self.flow });
    }
}
