# fairlab's ns-2 harness: the procedures every generated script uses.
#
# Written for ns-2 2.35's stock one-way agents (Agent/TCP/Reno, Newreno,
# Sack1 with Agent/TCPSink and its variants): no C++ of ns-2 is patched.
# Applications are OTcl classes whose `recv` ns-2 calls on every in-order
# delivery (apps/app.cc, Application::recv, enabled when the class has a
# recv instproc). Every line the harness prints for fairlab starts with
# "FL " (python/fairlab/ns2/run.py reads them).
#
# Two conventions of the one-way agents shape the bookkeeping:
# * syn_ is true by default (ns-default.tcl): an agent's first packet is a
#   40-byte SYN (sequence 0) that carries no message, so every sink's first
#   delivery is 40 bytes that belong to no message (the authors' stub skips
#   it: IncastTcpAppServerStub::recv, recvCallCount);
# * an agent sends whole packets: a message of n bytes is ceil(n /
#   packetSize_) packets of packetSize_ + 40 bytes (TcpAgent::sendmsg), so
#   a 100-byte request is one 1040-byte packet on the wire.
#
# The authors' patched TCPSink ACKed a packet before handing its data to the
# application (github.com/amarp/incast, ns-2.30/tcp/tcp-sink.cc: ack(pkt),
# then parent->recv()); the stock sink does the opposite (recvBytes() then
# ack()). fl_ack_first 1 reproduces the patched order without patching ns-2:
# the application's reaction is scheduled at the same instant, after the
# current event, by when the sink has sent its ACK (the calendar scheduler
# runs events of equal time in FIFO order).

set fl_ack_first 1

proc fl_later {cmd} {
    global ns fl_ack_first
    if {$fl_ack_first} { $ns at [$ns now] $cmd } else { eval $cmd }
}

# A message-counting application on a sink: calls `$cb k` for every
# complete message of `size` wire bytes (k counts from 1), after skipping
# the SYN's 40 bytes.
Class Application/FlMsgs -superclass Application
Application/FlMsgs instproc init {args} {
    $self instvar got n size cb
    eval $self next $args
    set got -40
    set n 0
    set size 1040
    set cb ""
}
Application/FlMsgs instproc recv {bytes} {
    $self instvar got n size cb
    incr got $bytes
    while {$size > 0 && $got >= $size} {
        incr got [expr {-$size}]
        incr n
        fl_later "$cb $n"
    }
}

# ---------------------------------------------------------------- incast
# Barrier-synchronized reads (FAST'08's IncastTcpAppClient and
# IncastTcpAppServer, rebuilt in OTcl). Per workload w and server i:
#   fl_req($w,$i)  request agent at the client,  its sink at the server
#   fl_dat($w,$i)  data agent at the server,     its sink at the client
#   fl_srv($w,$i)  FlMsgs on the request sink (one message per request)
#   fl_cli($w,$i)  FlMsgs on the data sink (one message per reply)
# Arrays fl_inc_* hold the workload's state.

proc fl_incast_server_msg {w i k} {
    global fl_dat fl_inc_warm fl_inc_pkts
    # With a warm-up the first message is the setup exchange, answered by
    # one packet (IncastTcpAppServer: INCAST_DONE answered with 100 bytes).
    if {$fl_inc_warm($w) && $k == 1} {
        $fl_dat($w,$i) advanceby 1
    } else {
        $fl_dat($w,$i) advanceby $fl_inc_pkts($w,$i)
    }
}

proc fl_incast_client_msg {w i k} {
    global fl_inc_phase fl_inc_next fl_inc_n fl_inc_done fl_inc_last fl_cli fl_inc_pkts fl_psize
    if {$fl_inc_phase($w) == "warm"} {
        # process_init(): the next server, then the first round.
        incr fl_inc_next($w)
        if {$fl_inc_next($w) < $fl_inc_n($w)} {
            fl_incast_send_req $w $fl_inc_next($w)
        } else {
            for {set s 0} {$s < $fl_inc_n($w)} {incr s} {
                $fl_cli($w,$s) set size [expr {$fl_inc_pkts($w,$s) * ($fl_psize($w) + 40)}]
            }
            set fl_inc_phase($w) "run"
            fl_incast_round $w
        }
        return
    }
    incr fl_inc_done($w)
    set fl_inc_last($w) $i
    if {$fl_inc_done($w) == $fl_inc_n($w)} { fl_incast_end_round $w }
}

proc fl_incast_send_req {w i} {
    global fl_req fl_inc_reqpkts
    $fl_req($w,$i) advanceby $fl_inc_reqpkts($w)
}

# The data agents' retransmission timeouts so far (nrexmit_ counts them:
# tcp.cc, timeout()).
proc fl_incast_timeouts {w} {
    global fl_inc_n fl_dat fl_req
    set t 0
    for {set i 0} {$i < $fl_inc_n($w)} {incr i} {
        incr t [$fl_dat($w,$i) set nrexmit_]
        incr t [$fl_req($w,$i) set nrexmit_]
    }
    return $t
}

proc fl_shuffle {n} {
    global fl_rng
    set l {}
    for {set i 0} {$i < $n} {incr i} { lappend l $i }
    for {set i [expr {$n - 1}]} {$i > 0} {incr i -1} {
        set j [$fl_rng integer [expr {$i + 1}]]
        set t [lindex $l $i]
        lset l $i [lindex $l $j]
        lset l $j $t
    }
    return $l
}

proc fl_incast_round {w} {
    global ns fl_inc_round fl_inc_start fl_inc_to0 fl_inc_done fl_inc_n fl_inc_order
    incr fl_inc_round($w)
    set fl_inc_start($w) [$ns now]
    set fl_inc_to0($w) [fl_incast_timeouts $w]
    set fl_inc_done($w) 0
    # The request order: the authors' client shuffles it every round
    # (IncastTcpAppClient::send_requests, seeded from the wall clock); here
    # from the run's seed, or in server order.
    if {$fl_inc_order($w) == "random"} {
        set order [fl_shuffle $fl_inc_n($w)]
    } else {
        set order {}
        for {set i 0} {$i < $fl_inc_n($w)} {incr i} { lappend order $i }
    }
    foreach i $order { fl_incast_send_req $w $i }
}

proc fl_incast_end_round {w} {
    global ns fl_inc_round fl_inc_rounds fl_inc_start fl_inc_to0 fl_inc_last fl_inc_bytes
    set now [$ns now]
    set to [expr {[fl_incast_timeouts $w] - $fl_inc_to0($w)}]
    puts [format "FL round %d %d %.12g %.12g %d %d %d" $w $fl_inc_round($w) \
        $fl_inc_start($w) $now $fl_inc_bytes($w) $fl_inc_last($w) $to]
    if {$fl_inc_round($w) < $fl_inc_rounds($w)} {
        fl_incast_round $w
    } else {
        fl_workload_done $w $now
    }
}

proc fl_incast_start {w} {
    global fl_inc_warm fl_inc_phase fl_inc_next fl_inc_n fl_cli fl_inc_pkts fl_psize
    if {$fl_inc_warm($w)} {
        set fl_inc_phase($w) "warm"
        set fl_inc_next($w) 0
        fl_incast_send_req $w 0
    } else {
        set fl_inc_phase($w) "run"
        for {set s 0} {$s < $fl_inc_n($w)} {incr s} {
            $fl_cli($w,$s) set size [expr {$fl_inc_pkts($w,$s) * ($fl_psize($w) + 40)}]
        }
        fl_incast_round $w
    }
}

# ---------------------------------------------------------------- flows
# A flow of a bulk or short workload: `done` is called by the agent when
# everything it was given is acknowledged (TcpAgent::finish).
proc fl_flow_done {f} {
    global ns fl_flow_end fl_flow_w fl_w_open
    if {[info exists fl_flow_end($f)]} { return }
    set fl_flow_end($f) [$ns now]
    set w $fl_flow_w($f)
    incr fl_w_open($w) -1
    if {$fl_w_open($w) == 0} { fl_workload_done $w [$ns now] }
}

# Poisson arrivals of UDP datagrams (exponential gaps from the run's RNG).
# Constant-rate (gap fixed) or Poisson (exponential gaps from the run's
# RNG) datagrams, until `stop` (negative: the end of the run).
proc fl_udp_send {id u size gap poisson stop} {
    global ns fl_rng fl_udp_sent
    set now [$ns now]
    if {$stop >= 0 && $now >= $stop} { return }
    $u send $size
    incr fl_udp_sent($id)
    set next $gap
    if {$poisson} { set next [$fl_rng exponential $gap] }
    $ns at [expr {$now + $next}] [list fl_udp_send $id $u $size $gap $poisson $stop]
}

# ---------------------------------------------------------------- series
# Per-flow delivered bytes per bin (metrics.throughput_bin): every bin end
# k * fl_bin, each flow's sink counter so far (a TCP sink's bytes_, wire
# bytes with the SYN's 40; a LossMonitor's npkts_), printed when it moved
# as "FL series k id counter" where k is the bin that just ended.
# python/fairlab/ns2/run.py turns the counters into payload per bin.
proc fl_series_sample {k} {
    global fl_flows fl_ser_last
    foreach f $fl_flows {
        lassign $f id agent sink
        if {[lindex [split [$agent info class] /] end] == "UDP"} {
            set c [$sink set npkts_]
        } else {
            set c [$sink set bytes_]
        }
        if {![info exists fl_ser_last($id)] || $fl_ser_last($id) != $c} {
            set fl_ser_last($id) $c
            puts [format "FL series %d %d %d" $k $id $c]
        }
    }
}

proc fl_series_tick {k} {
    global ns fl_bin
    fl_series_sample [expr {$k - 1}]
    $ns at [expr {($k + 1) * $fl_bin}] [list fl_series_tick [expr {$k + 1}]]
}

# ---------------------------------------------------------------- end
proc fl_workload_done {w t} {
    global fl_open
    puts [format "FL wdone %d %.12g" $w $t]
    incr fl_open -1
    if {$fl_open == 0} { fl_finish }
}

proc fl_finish {} {
    global ns fl_flows fl_ports fl_flow_end fl_flow_start fl_bin
    # The last (maybe partial) bin: the one the end falls in, or the one it
    # closes when the end is a bin's end.
    if {[info exists fl_bin]} {
        set k [expr {int(ceil([$ns now] / $fl_bin - 1e-9)) - 1}]
        fl_series_sample [expr {$k < 0 ? 0 : $k}]
    }
    puts [format "FL end %.12g" [$ns now]]
    foreach f $fl_flows {
        lassign $f id agent sink
        set end -1
        if {[info exists fl_flow_end($id)]} { set end $fl_flow_end($id) }
        set kind [lindex [split [$agent info class] /] end]
        if {$kind == "UDP"} {
            global fl_udp_sent
            puts [format "FL flow %d %.12g %.12g %d %d 0 0 0 0 0 0" $id $fl_flow_start($id) $end \
                $fl_udp_sent($id) [$sink set npkts_]]
            continue
        }
        # An incast flow's request agent (the other end of the simulator's
        # connection): its timeouts, 0 for other flows.
        set req_to 0
        if {[llength $f] > 3} { set req_to [[lindex $f 3] set nrexmit_] }
        puts [format "FL flow %d %.12g %.12g %d %d %d %d %.12g %.12g %.12g %d" $id \
            $fl_flow_start($id) $end [$agent set ndatapack_] [$sink set bytes_] \
            [$agent set nrexmitpack_] [$agent set nrexmit_] [$agent set cwnd_] \
            [$agent set srtt_] [$agent set tcpTick_] $req_to]
    }
    foreach p $fl_ports {
        lassign $p a b qm
        puts [format "FL port %s %s %d %d %d %d %d %d" $a $b \
            [$qm set parrivals_] [$qm set barrivals_] [$qm set pdepartures_] \
            [$qm set bdepartures_] [$qm set pdrops_] [$qm set bdrops_]]
    }
    flush stdout
    exit 0
}
