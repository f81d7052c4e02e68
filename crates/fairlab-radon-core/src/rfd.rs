//! Relative forward delay (seed §3.3, Table 3.1): the change in one-way delay
//! between two datagrams, which needs no clock synchronization because a
//! constant offset between the sender's and the receiver's clocks cancels.

/// RFD_ij = (R_j − R_i) − (S_j − S_i): positive when datagram j waited longer
/// on the forward path than datagram i.
pub fn rfd_ps(sent_i: i64, recv_i: i64, sent_j: i64, recv_j: i64) -> i64 {
    (recv_j - recv_i) - (sent_j - sent_i)
}
