fn main() {
    use std::mem::size_of;
    println!("Port {}", size_of::<fairlab_sim::net::Port>());
    println!("Queue {}", size_of::<fairlab_sim::queue::Queue>());
    println!("Node {}", size_of::<fairlab_sim::net::Node>());
    println!(
        "TcpSocket {}",
        size_of::<fairlab_sim::transport::tcp::TcpSocket>()
    );
    println!("Conn {}", size_of::<fairlab_sim::sim::Conn>());
    println!(
        "Endpoint {} UdpFlow {}",
        size_of::<fairlab_sim::transport::Endpoint>(),
        size_of::<fairlab_sim::transport::UdpFlow>()
    );
    println!("Workload {}", size_of::<fairlab_sim::workload::Workload>());
    println!("Packet {}", size_of::<fairlab_sim::packet::Packet>());
    println!(
        "TcpConfig {}",
        size_of::<fairlab_sim::transport::tcp::TcpConfig>()
    );
    println!("Cc {}", size_of::<fairlab_sim::transport::tcp::cc::Cc>());
    println!(
        "DropTail {} Hcf {} Red {} Sfq {} Drr {} Prio {} Nic {}",
        size_of::<fairlab_sim::queue::DropTail>(),
        size_of::<fairlab_sim::queue::Hcf>(),
        size_of::<fairlab_sim::queue::Red>(),
        size_of::<fairlab_sim::queue::Sfq>(),
        size_of::<fairlab_sim::queue::Drr>(),
        size_of::<fairlab_sim::queue::Priority>(),
        size_of::<fairlab_sim::queue::Nic>()
    );
    println!(
        "Bulk {} Incast {} Short {} Udp {}",
        size_of::<fairlab_sim::workload::Bulk>(),
        size_of::<fairlab_sim::workload::Incast>(),
        size_of::<fairlab_sim::workload::ShortFlows>(),
        size_of::<fairlab_sim::workload::Udp>()
    );
}
#[allow(dead_code)]
fn more() {}
