#! /usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
#
# Examples that ns-3's test.py runs in-tree, and that the standalone ctest
# smoke-runs (cmake/rocev2-standalone.cmake reads this file). Each example
# exits non-zero when its own invariants fail (bytes missing, buffers not
# drained), so a run is a check, not just a crash test. The --cc and
# --dcqcn-preset runs of rocev2-incast also fail when the congestion control
# never acted (no CNP for DCQCN, no rate or window cut), which PFC alone
# would otherwise hide.
#
# A list of C++ examples to run in order to ensure that they remain
# buildable and runnable over time. Each tuple in the list contains
#
#     (example_name, do_run, do_valgrind_run).
cpp_examples = [
    ("rocev2-two-hosts --size=1000000", "True", "True"),
    ("rocev2-two-hosts --size=2000000 --qps=4 --error-rate=0.01", "True", "False"),
    ("rocev2-incast --senders=16 --size=300000 --buffer=2", "True", "False"),
    ("rocev2-incast --senders=8 --size=200000 --pfc=0 --buffer=0.3", "True", "False"),
    ("rocev2-incast --senders=8 --size=500000 --dcqcn-preset=paper-2015", "True", "False"),
    ("rocev2-incast --senders=8 --size=500000 --dcqcn-preset=nvidia-cx", "True", "False"),
    ("rocev2-incast --senders=8 --size=500000 --dcqcn-preset=hpcc-sim", "True", "False"),
    ("rocev2-incast --senders=8 --size=500000 --cc=hpcc", "True", "False"),
    ("rocev2-incast --senders=8 --size=500000 --cc=timely", "True", "False"),
    ("rocev2-incast --senders=8 --size=500000 --cc=dctcp", "True", "False"),
    ("rocev2-incast --senders=4 --size=300000 --buffer=0.5 --monitor=rocev2-incast-monitor --sample=5us --json=rocev2-incast-monitor.json", "True", "False"),
    ("rocev2-victim-flow --cc=none --size=1000000 --victim-size=10000000 --warmup=100us", "True", "False"),
    ("rocev2-ai-zone-topology --gpus=64 --uplinks=8 --pairs=16", "True", "False"),
    ("rocev2-ai-zone-topology --gpus=256 --tiers=3 --zones=2 --uplinks=4 --oversub=2 --pairs=16", "True", "False"),
    ("rocev2-ai-zone-topology --gpus=256 --rail=1 --pairs=16", "True", "False"),
    ("rocev2-ai-zone-topology --fat-tree=4 --pairs=16", "True", "False"),
    ("rocev2-ai-zone-topology --gpus=256 --job=64 --placement=fragmented --pairs=16", "True", "False"),
    ("rocev2-nvlink-transfer --pattern=all-to-all --size=1MB", "True", "False"),
    ("rocev2-nvlink-transfer --pattern=ring --gpus=4 --size=3MB --nvlink-rate=2400Gbps", "True", "False"),
    ("rocev2-ai-zone-allreduce --gpus=16 --algo=tree --sizes=1M", "True", "False"),
    ("rocev2-ai-zone-allreduce --gpus=16 --op=broadcast --algo=tree --sizes=1M", "True", "False"),
    ("rocev2-ai-zone-allreduce --gpus=16 --algo=hd --sizes=1M", "True", "False"),
    ("rocev2-ai-zone-allreduce --gpus=16 --algo=hier --sizes=1M", "True", "False"),
    ("rocev2-victim-flow --cc=dcqcn --size=1000000 --victim-size=10000000 --warmup=100us", "True", "False"),
    ("rocev2-ai-zone-job --job=examples/jobs/dp-buckets.json", "True", "False"),
    ("rocev2-ai-zone-job --job=examples/jobs/tp-dp.json", "True", "False"),
    ("rocev2-ai-zone-job --job=examples/jobs/dp-buckets.json --faults=examples/faults/ai-zone-uplink-down.txt --ns3::RoceQueuePair::RetransmitTimeout=500us", "True", "False"),
    ("rocev2-ai-zone-allreduce --job=examples/jobs/tp-dp.json", "True", "False"),
    ("rocev2-ai-zone-allreduce --gpus=16 --op=sendrecv --sizes=4M", "True", "False"),
    ("rocev2-ai-zone-allreduce --gpus=16 --op=alltoallv --sizes=4M", "True", "False"),
    ("rocev2-ai-zone-allreduce --gpus=16 --sizes=1M,4M", "True", "False"),
    ("rocev2-ai-zone-allreduce --gpus=16 --sizes=1M,4M --fidelity=flow", "True", "False"),
    ("rocev2-ai-zone-allreduce --gpus=32 --algo=tree --sizes=4M --qps=4 --qp-mode=rr --fidelity=flow", "True", "False"),
    ("rocev2-ai-zone-allreduce --gpus=32 --op=alltoall --sizes=4M --uplinks=8 --fidelity=flow", "True", "False"),
    ("rocev2-ai-zone-allreduce --job=examples/jobs/tp-dp.json --fidelity=flow", "True", "False"),
    ("rocev2-ai-zone-job --job=examples/jobs/dp-buckets.json --fidelity=flow", "True", "False"),
    ("rocev2-workload --load=0.3 --duration=100us --fidelity=flow", "True", "False"),
    ("rocev2-workload --pattern=incast --size=200000 --fidelity=flow", "True", "False"),
    ("rocev2-workload --pattern=permutation --size=500000 --faults=examples/faults/leaf-spine-route-faults.txt --ns3::RoceQueuePair::RetransmitTimeout=300us --ns3::RoceFaultInjector::DetectionDelay=50us --fidelity=flow", "True", "False"),
    ("rocev2-ai-zone-allreduce --gpus=32 --sizes=16M --faults=examples/faults/ai-zone-uplink-down.txt --ns3::RoceQueuePair::RetransmitTimeout=500us --fidelity=flow", "True", "False"),
    ("rocev2-hpcc-compat --topology=examples/hpcc/tiny-topology.txt --flows=examples/hpcc/tiny-flows.txt --cc=none --fidelity=flow --quiet", "True", "False"),
    ("rocev2-ai-zone-allreduce --gpus=16 --sizes=4M --faults=examples/faults/ai-zone-uplink-down.txt --ns3::RoceQueuePair::RetransmitTimeout=500us", "True", "False"),
    ("rocev2-workload --pattern=permutation --size=500000 --faults=examples/faults/leaf-spine-faults.txt --ns3::RoceQueuePair::RetransmitTimeout=300us --ns3::RoceFaultInjector::DetectionDelay=50us", "True", "False"),
    ("rocev2-ai-zone-allreduce --gpus=16 --op=alltoall --sizes=4M --qps=2 --qp-mode=rr", "True", "False"),
    ("rocev2-ai-zone-allreduce --gpus=8 --op=broadcast --sizes=1M", "True", "False"),
    ("rocev2-ai-zone-allreduce --gpus=32 --op=allgather --sizes=2M --placement=fragmented --fabric-gpus=64", "True", "False"),
    ("rocev2-load-balancing --lb=ecmp --messages=2 --size=64KiB", "True", "False"),
    ("rocev2-load-balancing --lb=flowlet --messages=2 --size=64KiB", "True", "False"),
    ("rocev2-load-balancing --lb=flowlet --flowlet-choice=least-loaded --messages=2 --size=64KiB", "True", "False"),
    ("rocev2-load-balancing --lb=spray --messages=2 --size=64KiB", "True", "False"),
    ("rocev2-load-balancing --lb=spray --spray-mode=round-robin --receive-window=0 --messages=2 --size=64KiB", "True", "False"),
    ("rocev2-load-balancing --lb=adaptive --messages=2 --size=64KiB", "True", "False"),
    ("rocev2-load-balancing --lb=te --messages=2 --size=64KiB", "True", "False"),
    ("rocev2-workload --load=0.3 --duration=100us", "True", "False"),
    ("rocev2-workload --pattern=incast --size=200000 --cc=dcqcn", "True", "False"),
    ("rocev2-workload --pattern=permutation --size=500000", "True", "False"),
    ("rocev2-hpcc-compat --config=examples/hpcc/config-tiny.txt --quiet", "True", "False"),
    ("rocev2-hpcc-compat --config=examples/hpcc/config-tiny.txt --framing=hpcc-sim --quiet", "True", "False"),
    ("rocev2-hpcc-compat --topology=examples/hpcc/tiny-topology.txt --flows=examples/hpcc/tiny-flows.txt --cc=hpcc --quiet", "True", "False"),
    ("rocev2-hpcc-compat --topology=examples/hpcc/tiny-topology.txt --load=0.5 --duration=300us --cc=dctcp --monitor=rocev2-hpcc-compat-mon --quiet", "True", "False"),
    ("rocev2-pfc-deadlock --end=5ms", "True", "False"),
    ("rocev2-pfc-deadlock --watchdog=1 --end=10ms", "True", "False"),
    ("rocev2-pfc-deadlock --watchdog=1 --action=forward --end=10ms", "True", "False"),
    ("rocev2-fault-soak --seeds=2 --duration=1ms", "True", "False"),
    ("rocev2-mpi-fabric --size=1MB --permutation=64KB", "True", "False"),
    ("rocev2-mpi-fabric --cc=dcqcn --incast=4", "True", "False"),
]

# A list of Python examples to run in order to ensure that they remain
# runnable over time.
python_examples = []
