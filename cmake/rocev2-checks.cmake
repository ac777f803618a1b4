# SPDX-License-Identifier: GPL-2.0-only
#
# Repository-level checks of the standalone build, run by ctest with the tests.
# Included at the end of rocev2-standalone.cmake.

find_program(ROCEV2_PYTHON3 python3)
if(NOT ROCEV2_PYTHON3)
  message(WARNING "python3 not found: the check/* tests are not registered")
  return()
endif()

get_filename_component(_rocev2_root ${CMAKE_CURRENT_LIST_DIR} DIRECTORY)

# wscript-compat/ must list exactly the sources, headers, test sources and
# examples that CMakeLists.txt and examples/CMakeLists.txt list.
add_test(NAME check/wscript-lists
         COMMAND ${ROCEV2_PYTHON3} ${_rocev2_root}/utils/check-wscript.py --root ${_rocev2_root})

# Bad input to the two-host example must abort with a message that names the
# offending value (NS_ABORT_MSG cannot be tested inside the test runner). A
# check whose flag the example does not accept fails.
set(_rocev2_two_hosts ${CMAKE_BINARY_DIR}/examples/rocev2-two-hosts)

# _rocev2_abort_check(<name> <expected text> <program> <args>...): the program
# must exit with status 2 (a usage error: RoceCommandLine) and
# print the text (utils/check-output.py).
function(_rocev2_abort_check name expect)
  add_test(NAME check/abort/${name}
           COMMAND ${ROCEV2_PYTHON3} ${_rocev2_root}/utils/check-output.py
                   --status=2 --output=${expect} -- ${ARGN}
           WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
endfunction()

# rocev2_add_abort_check(<name> <expected text> <example args>...)
function(rocev2_add_abort_check name expect)
  _rocev2_abort_check(${name} "${expect}" ${_rocev2_two_hosts} ${ARGN})
endfunction()

rocev2_add_abort_check(mtu-zero "PayloadMtu=0 out of range 256..9000" --mtu=0)
rocev2_add_abort_check(mtu-too-large "PayloadMtu=9001 out of range 256..9000" --mtu=9001)
rocev2_add_abort_check(error-rate "--error-rate=1.5 out of range 0..1" --error-rate=1.5)
rocev2_add_abort_check(qps-zero "--qps must be at least 1" --qps=0)
rocev2_add_abort_check(rate "--rate=fast is not a data rate (e.g. 100Gbps)" --rate=fast)
rocev2_add_abort_check(delay "--delay=-1us is not a time (e.g. 10us)" --delay=-1us)
rocev2_add_abort_check(size-negative "--size=-5 is not a byte count (e.g. 1000000 or 1MB)"
  --size=-5)
rocev2_add_abort_check(rto-zero "--rto=0us must be positive" --rto=0us)
rocev2_add_abort_check(rx-drain-rate "--rx-drain-rate=1 is not a data rate (e.g. 100Gbps)"
  --rx-drain-rate=1)
rocev2_add_abort_check(priority "Priority=9 out of range 0..7" --priority=9)
rocev2_add_abort_check(remote-unknown "no NIC has address 10.9.9.9" --remote=10.9.9.9)

# Congestion-control input to the incast example.
set(_rocev2_incast ${CMAKE_BINARY_DIR}/examples/rocev2-incast)
function(rocev2_add_incast_abort_check name expect)
  _rocev2_abort_check(${name} "${expect}" ${_rocev2_incast} --senders=2 --size=10000 ${ARGN})
endfunction()
rocev2_add_incast_abort_check(cc-unknown
  "unknown congestion control 'cubic' (known: none, dcqcn, hpcc, timely, dctcp" --cc=cubic)
rocev2_add_incast_abort_check(dcqcn-preset-unknown
  "unknown DCQCN preset 'paper-2016' (known: paper-2015, nvidia-cx, hpcc-sim)"
  --dcqcn-preset=paper-2016)
rocev2_add_incast_abort_check(dcqcn-preset-cc "--dcqcn-preset=nvidia-cx needs --cc=dcqcn, not --cc=hpcc"
  --dcqcn-preset=nvidia-cx --cc=hpcc)
rocev2_add_incast_abort_check(dcqcn-min-rate
  "RoceCcDcqcn: MinRate=200000000000bps exceeds the line rate 100000000000bps"
  --cc=dcqcn --ns3::RoceCcDcqcn::MinRate=200Gbps)
rocev2_add_incast_abort_check(trace-interval "--trace-interval=10xs is not a time (e.g. 10us)"
  --trace-interval=10xs)
rocev2_add_incast_abort_check(base-rtt "--base-rtt=0us must be positive" --base-rtt=0us)
rocev2_add_incast_abort_check(rate-negative "--rate=-5Gbps is not a data rate (e.g. 100Gbps)"
  --rate=-5Gbps)
rocev2_add_incast_abort_check(rate-zero "--rate=0Gbps must be positive" --rate=0Gbps)
rocev2_add_incast_abort_check(delay-no-unit "--delay=1 is not a time (e.g. 10us)" --delay=1)
rocev2_add_incast_abort_check(size-garbage "--size=lots is not a byte count (e.g. 1000000 or 1MB)"
  --size=lots)
rocev2_add_incast_abort_check(size-fraction "--size=1.5 is not a whole number of bytes" --size=1.5)
rocev2_add_incast_abort_check(size-zero "--size=0MB must be positive" --size=0MB)

# Bad fault files (--faults=FILE, RoceFaultHelper::Load): each is written at
# configure time next to the message it must give, with the file and line.
# The incast's nodes are named switch and host0..host2.
set(_rocev2_fault_dir ${CMAKE_BINARY_DIR}/check-faults)
function(rocev2_add_fault_file_check name expect content)
  file(WRITE ${_rocev2_fault_dir}/${name}.txt "# a comment line\n${content}\n")
  rocev2_add_incast_abort_check(faults-${name} "${name}.txt:2: ${expect}"
    --faults=${_rocev2_fault_dir}/${name}.txt)
endfunction()
rocev2_add_fault_file_check(kind
  "fault 'link-dwn' is unknown (known: link-down, link-flap, link-loss, link-up, pfc-storm, slow-receiver, switch-down, switch-up)"
  "1ms link-dwn switch host0")
rocev2_add_fault_file_check(time "time 'soon' is not a time (e.g. 1000ns)"
  "soon link-down switch host0")
rocev2_add_fault_file_check(name "target 'hostX' is neither a node id nor a known name"
  "1ms link-down switch hostX")
rocev2_add_fault_file_check(node-id "target node id '99' is not below 4 (the node count)"
  "1ms link-down 99 0")
rocev2_add_fault_file_check(no-link "target: no link between 'host0' and 'host1'"
  "1ms link-down host0 host1")
rocev2_add_fault_file_check(device "target 'host0:7': node 1 has 1 devices"
  "1ms link-down host0:7")
rocev2_add_fault_file_check(one-node "target 'switch': a link is one device (node:d, or a NIC's name) or two nodes"
  "1ms link-down switch")
rocev2_add_fault_file_check(missing-param "link-flap needs the parameter 'until='"
  "1ms link-flap switch host1 period=1ms down=0.5")
rocev2_add_fault_file_check(unknown-param "parameter 'prio' is not one of pfc-storm's"
  "1ms pfc-storm host1 prio=3 for=1ms")
rocev2_add_fault_file_check(ber "ber '2' is not in [0, 1]" "1ms link-loss switch host1 ber=2")
rocev2_add_fault_file_check(ber-and-drop
  "link-loss takes one of 'ber=' (bit error rate) and 'drop=' (share of frames lost)"
  "1ms link-loss switch host1 ber=1e-6 drop=0.1")
rocev2_add_fault_file_check(priority "priority '8' is not a whole number of at most 7"
  "1ms pfc-storm host1 priority=8 for=1ms")
rocev2_add_fault_file_check(not-a-switch "target 'host1' is not a switch" "1ms switch-down host1")
rocev2_add_fault_file_check(down-share "down '1' must be a share of the period in (0, 1)"
  "0s link-flap switch host1 period=1ms down=1 until=5ms")
rocev2_add_fault_file_check(until "until '1ms' must be after the time '2ms'"
  "2ms link-flap switch host1 period=1ms down=0.5 until=1ms")
rocev2_add_fault_file_check(no-nic "target 'switch' has no NIC"
  "1ms slow-receiver switch rate=1Gbps for=1ms")
rocev2_add_fault_file_check(rate "rate 'slow' is not a positive rate (e.g. 100Gbps)"
  "1ms slow-receiver host0 rate=slow for=1ms")
rocev2_add_fault_file_check(fields "expected 'time fault target... [key=value...]', found 1 field(s)"
  "1ms")
rocev2_add_incast_abort_check(faults-missing "--faults=missing.txt cannot be read"
  --faults=missing.txt)

# A large incast warns on stderr before it runs: more than 1,000 senders, or
# an estimated 1 GB (21 KB per host: 50,000 hosts are 1.05 GB); --quiet hides
# the warning, --dry-run prints the estimate and stops.
function(rocev2_add_incast_output_check name)
  add_test(NAME check/incast/${name}
           COMMAND ${ROCEV2_PYTHON3} ${_rocev2_root}/utils/check-output.py ${ARGN}
           WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
endfunction()
rocev2_add_incast_output_check(large-warning
  --stderr "rocev2-incast: warning: a large run: 1002 hosts, 1001 data packets"
  -- ${_rocev2_incast} --senders=1001 --size=1000 --buffer=64)
rocev2_add_incast_output_check(large-quiet --no-stderr "warning"
  -- ${_rocev2_incast} --senders=1001 --size=1000 --buffer=64 --quiet)
rocev2_add_incast_output_check(not-large --no-stderr "warning"
  -- ${_rocev2_incast} --senders=1000 --size=1000 --buffer=64)
rocev2_add_incast_output_check(dry-run-senders
  --stdout "rocev2-incast: dry run: 100001 hosts, 97700000 data packets" --stdout "(large)"
  --no-stderr "warning" --timeout=20 -- ${_rocev2_incast} --senders=100000 --dry-run)
rocev2_add_incast_output_check(dry-run-memory --stdout "(large)" --timeout=20
  -- ${_rocev2_incast} --senders=1 --hosts=50000 --dry-run)

# Wireshark decodes the example's pcaps: BTH/RETH/AETH of a WRITE and its ACKs
# (several packets, and a single WRITE_ONLY), and PFC frames of a slow receiver.
find_program(ROCEV2_TSHARK tshark)
if(ROCEV2_TSHARK)
  set(_rocev2_check_pcap ${ROCEV2_PYTHON3} ${_rocev2_root}/utils/check-pcap.py
                         --example ${_rocev2_two_hosts} --tshark ${ROCEV2_TSHARK})
  add_test(NAME check/pcap/write COMMAND ${_rocev2_check_pcap} --size=20001)
  add_test(NAME check/pcap/write-only COMMAND ${_rocev2_check_pcap} --size=1000)
  add_test(NAME check/pcap/pfc COMMAND ${_rocev2_check_pcap} --pfc)
else()
  message(STATUS "tshark not found: the check/pcap/* tests are not registered")
endif()

# Cases of utils/check-determinism.py with a test of their own (the check
# lists each case's reason): an incast whose ECN coins change with RngRun,
# packet spraying's per-packet random ports, and the same outputs under
# ns-3's MapScheduler and CalendarScheduler as under the examples' own.
# check/determinism (below) runs the other cases.
set(_rocev2_determinism_own incast load-balancing-spray schedulers)
foreach(_case ${_rocev2_determinism_own})
  add_test(NAME check/deterministic/${_case}
           COMMAND ${ROCEV2_PYTHON3} ${_rocev2_root}/utils/check-determinism.py
                   --build-dir ${CMAKE_BINARY_DIR} --root ${_rocev2_root} --only ${_case})
endforeach()
string(REPLACE ";" "," _rocev2_determinism_own "${_rocev2_determinism_own}")

# The examples run under ns3::RoceHeapScheduler unless the user names
# another scheduler, on the command line or in NS_GLOBAL_VALUE. ns-3's
# schedulers log their constructors (Debian's ns-3 is built with logging; the
# module's Release build is not, so the default case checks that neither of
# ns-3's is created, and gtest RoceHeapScheduler.IsTheExamplesScheduler...
# the name the examples bind); --PrintGlobals cannot tell, as CommandLine
# prints it before it applies the other arguments.
# _rocev2_scheduler_check(<name> <scheduler> <not scheduler> <env> <args>...):
# rocev2-two-hosts, with the environment entry <env> and the extra <args>, must
# create <scheduler> and not <not scheduler>.
function(_rocev2_scheduler_check name expect other env)
  add_test(NAME check/scheduler/${name}
           COMMAND ${CMAKE_COMMAND} -E env
                   "NS_LOG=${expect}=level_function|prefix_func:${other}=level_function|prefix_func"
                   ${env} ${ROCEV2_PYTHON3} ${_rocev2_root}/utils/check-output.py
                   --stderr "${expect}:${expect}(" --no-stderr "${other}:${other}(" --
                   ${CMAKE_BINARY_DIR}/examples/rocev2-two-hosts --size=10000 ${ARGN})
endfunction()
add_test(NAME check/scheduler/default
         COMMAND ${CMAKE_COMMAND} -E env
                 "NS_LOG=PriorityQueueScheduler=level_function|prefix_func:MapScheduler=level_function|prefix_func"
                 ${ROCEV2_PYTHON3} ${_rocev2_root}/utils/check-output.py
                 --no-stderr "PriorityQueueScheduler:PriorityQueueScheduler("
                 --no-stderr "MapScheduler:MapScheduler(" --
                 ${CMAKE_BINARY_DIR}/examples/rocev2-two-hosts --size=10000)
_rocev2_scheduler_check(user-wins PriorityQueueScheduler MapScheduler ROCEV2_NO_ENV=1
                        --SchedulerType=ns3::PriorityQueueScheduler)
_rocev2_scheduler_check(user-wins-list ListScheduler PriorityQueueScheduler ROCEV2_NO_ENV=1
                        --SchedulerType=ns3::ListScheduler)
_rocev2_scheduler_check(env-wins CalendarScheduler PriorityQueueScheduler
                        NS_GLOBAL_VALUE=SchedulerType=ns3::CalendarScheduler)
# The same for the simulator: the examples run under ns3::RoceSimulatorImpl
# (ns-3's DefaultSimulatorImpl logs its constructor; gtest RoceSimulatorImpl.*
# checks the name the examples bind) unless the user names another.
add_test(NAME check/scheduler/simulator-default
         COMMAND ${CMAKE_COMMAND} -E env "NS_LOG=DefaultSimulatorImpl=level_function|prefix_func"
                 ${ROCEV2_PYTHON3} ${_rocev2_root}/utils/check-output.py
                 --no-stderr "DefaultSimulatorImpl:DefaultSimulatorImpl(" --
                 ${CMAKE_BINARY_DIR}/examples/rocev2-two-hosts --size=10000)
add_test(NAME check/scheduler/simulator-user-wins
         COMMAND ${CMAKE_COMMAND} -E env "NS_LOG=DefaultSimulatorImpl=level_function|prefix_func"
                 ${ROCEV2_PYTHON3} ${_rocev2_root}/utils/check-output.py
                 --stderr "DefaultSimulatorImpl:DefaultSimulatorImpl(" --
                 ${CMAKE_BINARY_DIR}/examples/rocev2-two-hosts --size=10000
                 --SimulatorImplementationType=ns3::DefaultSimulatorImpl)
add_test(NAME check/scheduler/simulator-env-wins
         COMMAND ${CMAKE_COMMAND} -E env "NS_LOG=DefaultSimulatorImpl=level_function|prefix_func"
                 NS_GLOBAL_VALUE=SimulatorImplementationType=ns3::DefaultSimulatorImpl
                 ${ROCEV2_PYTHON3} ${_rocev2_root}/utils/check-output.py
                 --stderr "DefaultSimulatorImpl:DefaultSimulatorImpl(" --
                 ${CMAKE_BINARY_DIR}/examples/rocev2-two-hosts --size=10000)

# Input to the victim-flow example.
set(_rocev2_victim ${CMAKE_BINARY_DIR}/examples/rocev2-victim-flow)
function(rocev2_add_victim_abort_check name expect)
  _rocev2_abort_check(${name} "${expect}" ${_rocev2_victim} --size=10000 ${ARGN})
endfunction()
rocev2_add_victim_abort_check(victim-leaf-senders
  "--victim-leaf-senders must be at least 1" --victim-leaf-senders=0)
rocev2_add_victim_abort_check(victim-cc "unknown congestion control 'cubic'" --cc=cubic)

# Input to the load-balancing example: the example, RoceSwitch and
# RoceQueuePair name the attribute and the value.
set(_rocev2_lb ${CMAKE_BINARY_DIR}/examples/rocev2-load-balancing)
function(rocev2_add_lb_abort_check name expect)
  _rocev2_abort_check(lb-${name} "${expect}" ${_rocev2_lb} --messages=1 --size=4KiB ${ARGN})
endfunction()
rocev2_add_lb_abort_check(lb-unknown
  "--lb=ecmp2 is unknown (known: ecmp, flowlet, spray, adaptive, te)" --lb=ecmp2)
rocev2_add_lb_abort_check(flowlet-choice
  "RoceSwitch: FlowletChoice=random is unknown (known: hash, least-loaded)"
  --lb=flowlet --flowlet-choice=random)
rocev2_add_lb_abort_check(spray-mode
  "RoceSwitch: SprayMode=hash is unknown (known: random, round-robin)" --lb=spray --spray-mode=hash)
rocev2_add_lb_abort_check(flowlet-table-zero
  "RoceSwitch: FlowletTableSize=0 out of range 1..16777216 slots" --lb=flowlet --flowlet-table=0)
rocev2_add_lb_abort_check(flowlet-gap-zero "RoceSwitch: FlowletGap=+0us must be positive"
  --lb=flowlet --flowlet-gap=0us)
rocev2_add_lb_abort_check(flowlet-gap-unit "--flowlet-gap=256 is not a time (e.g. 10us)"
  --flowlet-gap=256)
rocev2_add_lb_abort_check(receive-window-large
  "RoceQueuePair: ReceiveWindow=70000 out of range 0..65536 packets" --receive-window=70000)
rocev2_add_lb_abort_check(receive-window-garbage
  "--receive-window=many is not a packet count or auto" --receive-window=many)

# Input to the AI Zone example: the helper and the example name what is wrong.
set(_rocev2_zone ${CMAKE_BINARY_DIR}/examples/rocev2-ai-zone-topology)
function(rocev2_add_zone_abort_check name expect)
  _rocev2_abort_check(zone-${name} "${expect}" ${_rocev2_zone} --pairs=0 ${ARGN})
endfunction()
rocev2_add_zone_abort_check(preset "preset \"meta-zone-5k\" is unknown (known: meta-zone-3072, meta-cluster-24k)"
  --preset=meta-zone-5k)
rocev2_add_zone_abort_check(fat-tree-odd "fat-tree k=7 (must be even and 2..256)" --fat-tree=7)
rocev2_add_zone_abort_check(rail "--rail=2 (must be 0 or 1)" --rail=2)
rocev2_add_zone_abort_check(placement "--placement=packed is unknown (contiguous, fragmented or random)"
  --gpus=64 --job=16 --placement=packed)
rocev2_add_zone_abort_check(job-too-large "n=128 exceeds the 64 free GPUs" --gpus=64 --job=128)
rocev2_add_zone_abort_check(dot-too-large "the fabric has 208 nodes" --gpus=1024 --dot=zone.dot)

# Input to the collective example: the example, the collective helper and the
# collective name what is wrong, with the value given.
set(_rocev2_coll ${CMAKE_BINARY_DIR}/examples/rocev2-ai-zone-allreduce)
function(rocev2_add_coll_abort_check name expect)
  _rocev2_abort_check(collective-${name} "${expect}" ${_rocev2_coll} --gpus=16 --sizes=64K ${ARGN})
endfunction()
rocev2_add_coll_abort_check(op
  "unknown operation 'gather' (known: allreduce, allgather, reducescatter, alltoall, broadcast, sendrecv, alltoallv)"
  --op=gather)
rocev2_add_coll_abort_check(algo "unknown algorithm 'butterfly' (known: ring, direct, tree, hd, hier)" --algo=butterfly)
rocev2_add_coll_abort_check(sizes "--sizes=abc is not a byte count (e.g. 1000000 or 1MB)"
  --sizes=1M,abc)
rocev2_add_coll_abort_check(gpus-zero "--gpus=0: a job needs at least one rank" --gpus=0)
rocev2_add_coll_abort_check(gpus-too-many "--gpus=40 ranks but the fabric has --fabric-gpus=32"
  --gpus=40 --fabric-gpus=32)
rocev2_add_coll_abort_check(placement "--placement=packed is unknown (contiguous, fragmented or random)"
  --placement=packed)
# AllGather's size is the gathered buffer: each of the p ranks owns size / p.
rocev2_add_coll_abort_check(allgather-not-multiple
  "allgather size 1000 is not a multiple of the 3 ranks (each rank's share is size / ranks)"
  --op=allgather --gpus=3 --sizes=1000)
rocev2_add_coll_abort_check(qp-mode "ns3::RoceCommunicator::QpMode=xyz is not accepted (valid: split|rr)"
  --qp-mode=xyz)
rocev2_add_coll_abort_check(background "--background=2 (must be 0 or 1)" --background=2)
rocev2_add_coll_abort_check(background-full "--background=1 but the job takes all --fabric-gpus=16"
  --background=1)

# The fabric picture is a graph graphviz renders (k=4 fat-tree and a rail zone).
find_program(ROCEV2_DOT dot)
if(ROCEV2_DOT)
  foreach(_shape "fat-tree;--fat-tree=4" "rail;--gpus=64;--rail=1;--servers=4;--uplinks=4")
    list(GET _shape 0 _name)
    list(SUBLIST _shape 1 -1 _args)
    add_test(NAME check/dot/${_name}
             COMMAND sh -c "\"$0\" \"$@\" --pairs=0 --dot=check-${_name}.dot && ${ROCEV2_DOT} -Tsvg check-${_name}.dot -o check-${_name}.svg && grep -q '<svg' check-${_name}.svg"
                     ${_rocev2_zone} ${_args}
             WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  endforeach()
else()
  message(STATUS "graphviz dot not found: the check/dot/* tests are not registered")
endif()
rocev2_add_victim_abort_check(victim-preset "unknown DCQCN preset 'fast'"
  --cc=dcqcn --dcqcn-preset=fast)
rocev2_add_victim_abort_check(victim-preset-cc "--dcqcn-preset=hpcc-sim needs --cc=dcqcn, not --cc=hpcc"
  --cc=hpcc --dcqcn-preset=hpcc-sim)
rocev2_add_victim_abort_check(victim-fabric-rate "--fabric-rate=fast is not a data rate" --fabric-rate=fast)
rocev2_add_victim_abort_check(victim-warmup "--warmup=-5us is not a time" --warmup=-5us)
rocev2_add_victim_abort_check(victim-rate "--rate=-5Gbps is not a data rate (e.g. 100Gbps)"
  --rate=-5Gbps)
rocev2_add_victim_abort_check(victim-delay "--delay=1ms1 is not a time" --delay=1ms1)
rocev2_add_victim_abort_check(victim-size "--victim-size=-1 is not a byte count" --victim-size=-1)

# The scale-up example: a zero rate or GPU count reaches RoceNvlinkDomain,
# which names the attribute; an unknown pattern is refused by the example.
set(_rocev2_nvlink ${CMAKE_BINARY_DIR}/examples/rocev2-nvlink-transfer)
function(rocev2_add_nvlink_abort_check name expect)
  _rocev2_abort_check(${name} "${expect}" ${_rocev2_nvlink} --size=1000 ${ARGN})
endfunction()
rocev2_add_nvlink_abort_check(nvlink-rate-zero "RoceNvlinkDomain: DataRate=0bps must be positive"
  --nvlink-rate=0Gbps)
rocev2_add_nvlink_abort_check(nvlink-gpus-zero "RoceNvlinkDomain: NGpus=0 must be at least 1"
  --gpus=0)
rocev2_add_nvlink_abort_check(nvlink-pattern "--pattern=tree is not all-to-all or ring"
  --pattern=tree)

# `./rocev2 run FILE.cc|FOLDER`: README.md's first simulation, copied into
# scratch/, prints what README.md promises; a folder builds into one program,
# is cached and recompiled file by file; compile errors fail the command with
# the compiler's file:line on stderr. The runner builds the module, so these
# checks never run at the same time as each other. `./rocev2 run` knows the
# Release and Debug folders only: a sanitizer build leaves these checks out.
set(_rocev2_run_opts)
if(CMAKE_BUILD_TYPE STREQUAL "Debug")
  set(_rocev2_run_opts --debug)
endif()
if(NOT ROCEV2_SANITIZE)
add_test(NAME check/run/first-simulation
         COMMAND ${ROCEV2_PYTHON3} ${_rocev2_root}/utils/check-run.py first-simulation
                 --cli ${_rocev2_root}/rocev2 ${_rocev2_run_opts}
                 --readme ${_rocev2_root}/README.md
                 --program ${_rocev2_root}/scratch/rocev2-first-simulation.cc
         WORKING_DIRECTORY ${_rocev2_root})
add_test(NAME check/run/programs
         COMMAND ${ROCEV2_PYTHON3} ${_rocev2_root}/utils/check-run.py programs
                 --cli ${_rocev2_root}/rocev2 ${_rocev2_run_opts}
                 --work ${CMAKE_BINARY_DIR}/check-run
         WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
set_tests_properties(check/run/first-simulation check/run/programs PROPERTIES
                     RESOURCE_LOCK rocev2-build-folder)
endif()

# doc/rocev2-attributes.rst is what build/bin/rocev2-attributes prints
# (regenerate: ./rocev2 attributes --write).
if(EXISTS ${_rocev2_root}/utils/rocev2-attributes.cc)
  add_test(NAME check/attributes-doc
           COMMAND ${ROCEV2_PYTHON3} ${_rocev2_root}/utils/check-attributes-doc.py
                   --program ${CMAKE_BINARY_DIR}/bin/rocev2-attributes
                   --doc ${_rocev2_root}/doc/rocev2-attributes.rst)
endif()

# `./rocev2 build` without ns-3's packages says to run `./rocev2 setup`
# (a fake dpkg-query reports them missing), instead of CMake's
# "ns3Config.cmake not found".
add_test(NAME check/cli/build-needs-setup
         COMMAND ${ROCEV2_PYTHON3} ${_rocev2_root}/utils/check-build-packages.py
                 --cli ${_rocev2_root}/rocev2)

# Plots and sweeps (utils/plot.py, utils/sweep.py) need Debian's python3 with
# python3-matplotlib, which an interpreter earlier on PATH may lack.
find_program(ROCEV2_DEBIAN_PYTHON3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
if(ROCEV2_DEBIAN_PYTHON3)
  set(_rocev2_plot_python ${ROCEV2_DEBIAN_PYTHON3})
else()
  set(_rocev2_plot_python ${ROCEV2_PYTHON3})
endif()
# The Chakra traces of data/chakra/ read independently of the module's reader:
# Debian's python3-protobuf decodes them with classes protoc generates from
# helper/chakra/roce-chakra-et.proto. The files must hold what data/README.md
# says (the numbers the rocev2-chakra-replay suite asserts), and
# rocev2-chakra-replay's --json must match them: nodes executed per type and
# rank, collectives and transfers with their sizes, GPU compute, synthetic-8's
# makespan within 3 % of the critical path computed in the script. Without
# python3-protobuf or protoc the check fails, naming the package.
add_test(NAME check/chakra-trace
         COMMAND ${_rocev2_plot_python} ${_rocev2_root}/utils/check-chakra.py
                 --example ${CMAKE_BINARY_DIR}/examples/rocev2-chakra-replay
                 --root ${_rocev2_root} --work ${CMAKE_BINARY_DIR}/check-chakra)
# Parsers, percentiles per flow-size bucket, JSON flattening and the sweep's
# aggregation against hand-computed values.
add_test(NAME check/python/plot-sweep
         COMMAND ${_rocev2_plot_python} -m unittest -v test_plot_sweep
         WORKING_DIRECTORY ${_rocev2_root}/utils)
# sweeps/incast-tiny.json (rocev2-incast, cc x senders, 2 seeds): 8 rows with
# the grid values and seeds, bytes_delivered = senders x size, valid PNGs, the
# same results.csv twice, a failing run reported (exit 1).
add_test(NAME check/sweep/tiny
         COMMAND ${_rocev2_plot_python} ${_rocev2_root}/utils/check-sweep.py
                 --example ${CMAKE_BINARY_DIR}/examples/rocev2-incast
                 --work ${CMAKE_BINARY_DIR}/check-sweep)

# rocev2-hpcc-compat: an HPCC-lineage config.txt run end to end (FCT, PFC and
# queue files in that lineage's formats, the JSON members, same seed same
# output, another RngRun another generated load), and its bad input.
set(_rocev2_hpcc ${CMAKE_BINARY_DIR}/examples/rocev2-hpcc-compat)
add_test(NAME check/hpcc-compat/tiny-config
         COMMAND ${ROCEV2_PYTHON3} ${_rocev2_root}/utils/check-hpcc-compat.py
                 ${_rocev2_hpcc} ${_rocev2_root} ${CMAKE_BINARY_DIR}/check-hpcc-compat)
function(rocev2_add_hpcc_abort_check name expect)
  _rocev2_abort_check(hpcc-${name} "${expect}" ${_rocev2_hpcc} ${ARGN})
endfunction()
rocev2_add_hpcc_abort_check(config-and-flows
  "--config sets the topology and flows: give either --config or --topology/--flows"
  --config=${_rocev2_root}/examples/hpcc/config-tiny.txt --flows=x.txt)
rocev2_add_hpcc_abort_check(load "--load=1.5 is not in [0, 1]" --load=1.5)
rocev2_add_hpcc_abort_check(config-and-cc "--cc with --config: the config file sets it"
  --config=${_rocev2_root}/examples/hpcc/config-tiny.txt --cc=hpcc)
rocev2_add_hpcc_abort_check(flows-and-load
  "--load generates the flows: give either --load or --flows"
  --topology=${_rocev2_root}/examples/hpcc/tiny-topology.txt
  --flows=${_rocev2_root}/examples/hpcc/tiny-flows.txt --load=0.3)
rocev2_add_hpcc_abort_check(cdf-without-load
  "--cdf, --duration and --start shape a generated load: give --load too"
  --topology=${_rocev2_root}/examples/hpcc/tiny-topology.txt
  --flows=${_rocev2_root}/examples/hpcc/tiny-flows.txt --duration=2ms)
rocev2_add_hpcc_abort_check(rates "--rates=1 needs --monitor=PREFIX" --load=0.1 --rates=1)
rocev2_add_hpcc_abort_check(nothing "nothing to run: give --config, --flows or --load")
rocev2_add_hpcc_abort_check(cc "unknown congestion control 'cubic'"
  --topology=${_rocev2_root}/examples/hpcc/tiny-topology.txt --load=0.1 --cc=cubic)
rocev2_add_hpcc_abort_check(preset "--dcqcn-preset=hpcc-sim needs --cc=dcqcn, not --cc=hpcc"
  --topology=${_rocev2_root}/examples/hpcc/tiny-topology.txt --load=0.1 --cc=hpcc
  --dcqcn-preset=hpcc-sim)
rocev2_add_hpcc_abort_check(flow-file "missing.txt: cannot be read"
  --topology=${_rocev2_root}/examples/hpcc/tiny-topology.txt --flows=missing.txt)
rocev2_add_hpcc_abort_check(config-line "tiny-flows.txt:1: '8' is not a config key"
  --config=${_rocev2_root}/examples/hpcc/tiny-flows.txt)

# The PFC deadlock example: the 4-switch ring's cycle, reported in its
# canonical printed form, and the watchdog that breaks it; and its bad input.
set(_rocev2_deadlock ${CMAKE_BINARY_DIR}/examples/rocev2-pfc-deadlock)
function(rocev2_add_deadlock_output_check name)
  add_test(NAME check/pfc-deadlock/${name}
           COMMAND ${ROCEV2_PYTHON3} ${_rocev2_root}/utils/check-output.py ${ARGN}
           WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
endfunction()
rocev2_add_deadlock_output_check(cycle
  --stdout "t=0.100ms deadlock: sw4/p1/pri3 -> sw5/p2/pri3 -> sw6/p2/pri3 -> sw7/p2/pri3 -> sw4/p1/pri3"
  --stdout "flows complete 0/4" -- ${_rocev2_deadlock} --end=5ms)
rocev2_add_deadlock_output_check(watchdog
  --stdout "watchdog: sw5/p2/pri3 fired after" --stdout "deadlock ended"
  --stdout "flows complete 4/4" -- ${_rocev2_deadlock} --watchdog=1 --end=10ms)
function(rocev2_add_deadlock_abort_check name expect)
  _rocev2_abort_check(pfc-deadlock-${name} "${expect}" ${_rocev2_deadlock} ${ARGN})
endfunction()
rocev2_add_deadlock_abort_check(action "--action=pause is not drop or forward" --action=pause)
rocev2_add_deadlock_abort_check(switches "--switches=2 must be at least 3" --switches=2)
rocev2_add_deadlock_abort_check(hops "--hops=4 out of range 1..3" --hops=4)
rocev2_add_deadlock_abort_check(timeout "--timeout=0ms must be positive" --timeout=0ms)
rocev2_add_deadlock_abort_check(detector-interval "RoceDeadlockDetector: Interval=+0ns must be positive"
  --ns3::RoceDeadlockDetector::Interval=0s)

# The Chakra trace dumper (standalone only, cmake/rocev2-chakra.cmake): a
# missing or malformed trace aborts naming the file, the message and the byte
# offset. "abc" reads as a length of 97 ('a') that runs past the end.
set(_rocev2_chakra_dump ${CMAKE_BINARY_DIR}/examples/rocev2-chakra-dump)
file(WRITE ${CMAKE_BINARY_DIR}/chakra-truncated.et "abc")
_rocev2_abort_check(chakra-et-required "--et=FILE is required" ${_rocev2_chakra_dump})
_rocev2_abort_check(chakra-unreadable "no-such.et: cannot be read" ${_rocev2_chakra_dump}
  --et=no-such.et)
_rocev2_abort_check(chakra-truncated
  "chakra-truncated.et: metadata at byte offset 0: message length 97 at byte 1 runs past the end of the file (3 bytes)"
  ${_rocev2_chakra_dump} --et=chakra-truncated.et)

# The Chakra replay (standalone only): bad flags and traces abort naming the
# flag or the file. The checks run in the build folder; traces are given by
# their path in the source tree.
set(_rocev2_chakra_replay ${CMAKE_BINARY_DIR}/examples/rocev2-chakra-replay)
set(_rocev2_pytorch_et ${_rocev2_root}/data/chakra/pytorch-ddp/chakra.0.et)
_rocev2_abort_check(chakra-replay-et-required "--et=FILE is required" ${_rocev2_chakra_replay})
_rocev2_abort_check(chakra-replay-truncated
  "chakra-truncated.et: metadata at byte offset 0: message length 97 at byte 1 runs past the end of the file (3 bytes)"
  ${_rocev2_chakra_replay} --et=chakra-truncated.et --replicate --gpus=2)
_rocev2_abort_check(chakra-replay-rank-missing "chakra.1.et: no trace for rank 1 of 2"
  ${_rocev2_chakra_replay} --et=${_rocev2_pytorch_et} --gpus=2)
_rocev2_abort_check(chakra-replay-not-a-set
  "chakra-truncated.et: a per-rank trace set is named by its rank-0 file (NAME.0.et) or its folder"
  ${_rocev2_chakra_replay} --et=chakra-truncated.et --gpus=2)
_rocev2_abort_check(chakra-replay-cpu-ops "--cpu-ops=some is unknown (zero or duration)"
  ${_rocev2_chakra_replay} --et=${_rocev2_pytorch_et} --replicate --cpu-ops=some)
_rocev2_abort_check(chakra-replay-ctrl-deps "--ctrl-deps=maybe is unknown (auto, use or ignore)"
  ${_rocev2_chakra_replay} --et=${_rocev2_pytorch_et} --replicate --ctrl-deps=maybe)
_rocev2_abort_check(chakra-replay-compute-scale "--compute-scale=-1 (must be between 0 and 1e6)"
  ${_rocev2_chakra_replay} --et=${_rocev2_pytorch_et} --replicate --compute-scale=-1)
_rocev2_abort_check(chakra-replay-algo "RoceCollective: unknown algorithm 'fast'"
  ${_rocev2_chakra_replay} --et=${_rocev2_pytorch_et} --replicate --algo=fast)
_rocev2_abort_check(chakra-replay-algo-ranks
  "Algorithm=hd cannot run process group '' collective 2 (allreduce on 12 ranks"
  ${_rocev2_chakra_replay} --et=${_rocev2_pytorch_et} --replicate --gpus=12 --algo=hd)
_rocev2_abort_check(chakra-replay-groups "no-such.json: cannot be read (the process-group file)"
  ${_rocev2_chakra_replay} --et=${_rocev2_pytorch_et} --replicate --gpus=2
  --comm-groups=no-such.json)
_rocev2_abort_check(chakra-replay-ctrl-use
  "the dependencies make a cycle: id 3317 -> id 3318 -> id 3317"
  ${_rocev2_chakra_replay} --et=${_rocev2_pytorch_et} --replicate --gpus=2 --ctrl-deps=use)

# Determinism: the examples twice with the same seed write byte-identical JSON,
# FCT files and pcaps, and another run number changes the random cases
# (utils/check-determinism.py; the cases with a test of their own are
# check/deterministic/*, above); its self-test injects a difference and must
# see it caught.
add_test(NAME check/determinism
         COMMAND ${ROCEV2_PYTHON3} ${_rocev2_root}/utils/check-determinism.py
                 --build-dir ${CMAKE_BINARY_DIR} --root ${_rocev2_root}
                 --skip ${_rocev2_determinism_own})
add_test(NAME check/determinism-self-test
         COMMAND ${ROCEV2_PYTHON3} ${_rocev2_root}/utils/check-determinism.py
                 --build-dir ${CMAKE_BINARY_DIR} --root ${_rocev2_root} --self-test)

# Attribute flags (--ns3::TYPE::NAME=VALUE) are checked before ns-3's
# CommandLine applies them, which would abort: status 2 and the flag.
rocev2_add_incast_abort_check(attribute-flag-value
  "--ns3::RoceQueuePair::RetransmitTimeout=abc: ns3::RoceQueuePair::RetransmitTimeout=abc is not a valid value"
  --ns3::RoceQueuePair::RetransmitTimeout=abc)
rocev2_add_incast_abort_check(attribute-flag-range
  "--ns3::RoceQueuePair::RetryCount=-1: ns3::RoceQueuePair::RetryCount=-1 is not a valid value (ns3::UintegerValue: uint32_t 0:1000)"
  --ns3::RoceQueuePair::RetryCount=-1)
rocev2_add_incast_abort_check(attribute-flag-name
  "--ns3::RoceQueuePair::Bogus=1: ns3::RoceQueuePair has no attribute Bogus (it has: Priority"
  --ns3::RoceQueuePair::Bogus=1)
rocev2_add_incast_abort_check(attribute-flag-type
  "--RoceQueuePair::RetryCount=5: no type RoceQueuePair (write --ns3::RoceQueuePair::RetryCount)"
  --RoceQueuePair::RetryCount=5)

# The memory guard refuses a fabric before building it when its estimate
# exceeds the limit (here ROCEV2_MEMORY_LIMIT=1MB): the AI Zone helper and the
# HPCC-format builder.
_rocev2_abort_check(memory-guard-ai-zone
  "RoceAiZoneHelper: 1024 GPUs: the scenario needs about 0.04 GB of memory (2048 links x 12600 B + 0 QPs x 4800 B + 12 MB), more than the 0.00 GB ROCEV2_MEMORY_LIMIT allows"
  /usr/bin/env ROCEV2_MEMORY_LIMIT=1MB ${CMAKE_BINARY_DIR}/examples/rocev2-ai-zone-topology --gpus=1024)
_rocev2_abort_check(memory-guard-hpcc
  "RoceHpccFormat::Build: 9 nodes: the scenario needs about 0.01 GB of memory (8 links x 12600 B"
  /usr/bin/env ROCEV2_MEMORY_LIMIT=1MB ${CMAKE_BINARY_DIR}/examples/rocev2-hpcc-compat
  --topology=${_rocev2_root}/examples/hpcc/tiny-topology.txt
  --flows=${_rocev2_root}/examples/hpcc/tiny-flows.txt --quiet)

# One fabric over MPI ranks (the MPI build, build-mpi/: ./rocev2 test --mpi):
# byte-identical results in one process (the plain build's example when
# built, else this one without mpirun) and on 1, 2 and 4 ranks, PFC frames
# across ranks, and the refusals of a zero-delay cut, of the null-message
# engine and of an example that does not split its fabric (utils/check-mpi.py).
if(ROCEV2_MPI)
  foreach(_check determinism zero-delay-cut notify-delay other-engine non-mpi-example)
    add_test(NAME mpi/${_check}
             COMMAND ${ROCEV2_PYTHON3} ${_rocev2_root}/utils/check-mpi.py ${_check}
                     --exe ${CMAKE_BINARY_DIR}/examples/rocev2-mpi-fabric
                     --plain ${_rocev2_root}/build/examples/rocev2-mpi-fabric)
  endforeach()
endif()

# One way to choose congestion control: every example refuses a DCQCN preset
# with another algorithm, --cc=dcqcn is the nvidia-cx preset everywhere,
# DCTCP gets its step marking, and rocev2-incast's hpcc-sim incast is the
# suite's scenario (utils/check-cc-choice.py).
add_test(NAME check/cc-choice
         COMMAND ${ROCEV2_PYTHON3} ${_rocev2_root}/utils/check-cc-choice.py
                 --build ${CMAKE_BINARY_DIR} --root ${_rocev2_root})

# The folders depend on each other one way: model/ needs no helper, the
# folder graph has no cycle, and no two classes include each other except an
# owner and its child (utils/check-layers.py; doc/rocev2.rst, Architecture).
add_test(NAME check/layers
         COMMAND ${ROCEV2_PYTHON3} ${_rocev2_root}/utils/check-layers.py --root ${_rocev2_root})
add_test(NAME check/layers-self-test
         COMMAND ${ROCEV2_PYTHON3} ${_rocev2_root}/utils/check-layers.py --self-test)

# A check whose program does not know one of its flags fails (it used to be
# reported as skipped, so a renamed flag passed every check that used it).
add_test(NAME check/output-unknown-flag
         COMMAND ${ROCEV2_PYTHON3} ${_rocev2_root}/utils/check-output.py
                 --self-test ${_rocev2_two_hosts}
         WORKING_DIRECTORY ${CMAKE_BINARY_DIR})

# ns-3.37's HeapScheduler reorders events after Simulator::Remove: refused.
rocev2_add_abort_check(heap-scheduler
  "--SchedulerType=ns3::HeapScheduler can run events out of time order"
  --SchedulerType=ns3::HeapScheduler)
