# SPDX-License-Identifier: GPL-2.0-only
"""The Python bindings (run by ctest as python/test_rocev2, with PYTHONPATH
set to the build's python/ folder):

- the Python example and the C++ example write byte-identical JSON for the
  same scenario and seed;
- each class of bad input raises rocev2.Error (a ValueError) naming the
  field and value, and the next scenario in the same process runs;
- monitors: array lengths, time stamps on the sampling interval, PFC events
  equal to the fabric's counters and to a Python callable's count;
- a scenario run twice in one process gives the same results;
- job files, HPCC-format scenarios and Chakra replays return the examples'
  dicts.
"""

import os
import subprocess
import sys
import tempfile
import unittest

import numpy

import rocev2

BUILD = os.environ.get("ROCEV2_BUILD", os.path.join(os.path.dirname(__file__), "..", "..", "build"))
ROOT = os.environ.get("ROCEV2_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))


def data(*parts):
    return os.path.join(ROOT, *parts)


def small_allreduce(size="1M"):
    """A 16-GPU AllReduce; returns its results and ends the scenario."""
    zone = rocev2.AiZone(gpus=16)
    coll = rocev2.Collective(zone, zone.placement().contiguous(16), sizes=[size])
    rocev2.run()
    results = coll.results()
    rocev2.destroy()
    return results


class Scenario(unittest.TestCase):
    """Every test starts and ends with no scenario."""

    def setUp(self):
        rocev2.destroy()

    def tearDown(self):
        rocev2.destroy()


class JsonIdentity(Scenario):
    """Python and C++ examples: the same bytes for the same scenario and seed."""

    def check(self, args):
        with tempfile.TemporaryDirectory() as tmp:
            cpp = os.path.join(tmp, "cpp.json")
            py = os.path.join(tmp, "py.json")
            subprocess.run([os.path.join(BUILD, "examples", "rocev2-ai-zone-allreduce")] + args
                           + ["--json=" + cpp], check=True, stdout=subprocess.DEVNULL)
            subprocess.run([sys.executable, data("examples", "python", "ai-zone-allreduce.py")]
                           + args + ["--json=" + py], check=True, stdout=subprocess.DEVNULL)
            with open(cpp, "rb") as a, open(py, "rb") as b:
                cpp_bytes, py_bytes = a.read(), b.read()
            self.assertGreater(len(cpp_bytes), 100)
            self.assertEqual(cpp_bytes, py_bytes)

    def test_allreduce(self):
        self.check(["--gpus=32", "--sizes=1M,4M"])

    def test_flow_level(self):
        self.check(["--gpus=32", "--sizes=1M,16M", "--fidelity=flow"])

    def test_random_placement_alltoall_dcqcn(self):
        self.check(["--gpus=32", "--fabric-gpus=64", "--placement=random", "--seed=3",
                    "--op=alltoall", "--qps=2", "--cc=dcqcn", "--sizes=1M"])


class CcComparison(Scenario):
    """examples/python/cc-comparison.py runs its scenarios one after another and draws its figure."""

    def test_figure(self):
        with tempfile.TemporaryDirectory() as tmp:
            png = os.path.join(tmp, "cc.png")
            out = subprocess.run([sys.executable, data("examples", "python", "cc-comparison.py"),
                                  "--cc=none,dcqcn", "--gpus=16", "--size=1M", "--out=" + png],
                                 check=True, capture_output=True, text=True).stdout
            self.assertIn("none ", out)
            self.assertIn("dcqcn ", out)
            with open(png, "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")


class Errors(Scenario):
    """Each error raises rocev2.Error with the field and value; the next run succeeds."""

    def expect(self, fn, *texts):
        with self.assertRaises(rocev2.Error) as cm:
            fn()
        self.assertIsInstance(cm.exception, ValueError)
        for text in texts:
            self.assertIn(text, str(cm.exception))
        rocev2.destroy()
        # The interpreter goes on, and the next scenario runs.
        self.assertEqual(small_allreduce()[0]["size"], 1 << 20)

    def test_unknown_cc(self):
        self.expect(lambda: rocev2.AiZone(gpus=16, cc="cubic"), "unknown congestion control 'cubic'")

    def test_flow_level_refuses_cc(self):
        def run():
            zone = rocev2.AiZone(gpus=16, cc="dcqcn", fidelity="flow")
            rocev2.Collective(zone, zone.placement().contiguous(16), sizes=["1M"])
            rocev2.run()

        self.expect(run, "uses congestion control dcqcn", "--fidelity=packet")

    def test_unknown_fidelity(self):
        self.expect(lambda: rocev2.AiZone(gpus=16, fidelity="fluid"), "fidelity fluid")

    def test_preset_with_another_cc(self):
        # As the examples: a DCQCN preset goes with dcqcn only.
        self.expect(lambda: rocev2.AiZone(gpus=16, cc="timely", dcqcn_preset="hpcc-sim"),
                    "--dcqcn-preset=hpcc-sim needs --cc=dcqcn, not --cc=timely")

    def test_attribute_value(self):
        self.expect(lambda: rocev2.Config.set_default("ns3::RoceQueuePair::RetransmitTimeout", "soon"),
                    "RetransmitTimeout=soon is not a valid value")
        self.expect(lambda: rocev2.Config.set_default("ns3::RoceNetDevice::PayloadMtu", "-3"),
                    "PayloadMtu=-3")

    def test_attribute_name(self):
        self.expect(lambda: rocev2.Config.set_default("ns3::RoceQueuePair::Speed", "1"),
                    "ns3::RoceQueuePair has no attribute Speed", "RetransmitTimeout")

    def test_attribute_out_of_range(self):
        def build():
            zone = rocev2.AiZone(gpus=16)
            rocev2.Collective(zone, zone.placement().contiguous(16), qps=0)
        self.expect(build, "QpsPerConnection=0")

    def test_fabric_shape(self):
        self.expect(lambda: rocev2.AiZone(gpus=72), "gpus=72 is not a multiple")

    def test_malformed_fault_file(self):
        with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
            f.write("# a fault file\n1ms link-down rtsw0 nowhere\n")
        try:
            def load():
                rocev2.Faults(rocev2.AiZone(gpus=16)).load(f.name)
            self.expect(load, f.name + ":2", "nowhere")
        finally:
            os.unlink(f.name)

    def test_malformed_job_file(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write('{"name": "j", "comms": [\n  {"name": "dp", "gpus": 16 "placement": "contiguous"}]}\n')
        try:
            self.expect(lambda: rocev2.Jobs(rocev2.AiZone(gpus=16), f.name), f.name + ":2",
                        "JSON syntax error")
        finally:
            os.unlink(f.name)

    def test_zone_used_after_destroy(self):
        """A zone freed by destroy() is refused, not used (its devices are gone)."""
        zone = rocev2.AiZone(gpus=16)
        rocev2.destroy()
        self.expect(lambda: rocev2.Collective(zone, [0, 1, 2, 3]), "freed by destroy()")
        self.expect(lambda: zone.placement(), "freed by destroy()")

    def test_unknown_op_and_bad_size(self):
        def run():
            zone = rocev2.AiZone(gpus=16)
            rocev2.Collective(zone, zone.placement().contiguous(16), op="allsum")
            rocev2.run()
        self.expect(run, "unknown operation 'allsum'")
        self.expect(lambda: rocev2.parse_bytes("lots"), "size 'lots' is not a byte count")


class Monitors(Scenario):
    """Monitor arrays: lengths, sampling instants, PFC counts."""

    def test_arrays_and_pfc_counts(self):
        rocev2.set_run(1)
        zone = rocev2.AiZone(gpus=32, uplinks=4)
        monitor = rocev2.Monitor(pfc=True, queues=5e-6, links=20e-6)
        calls = []
        matched = rocev2.connect("/NodeList/*/DeviceList/*/$ns3::RocePfcNetDevice/PfcTx",
                                 lambda ctx, prio, quanta: calls.append((prio, quanta)))
        self.assertGreater(matched, 0)
        coll = rocev2.Collective(zone, zone.placement().contiguous(32), op="alltoall", sizes=["8M"])
        rocev2.run()
        self.assertTrue(coll.finished)
        stats = rocev2.fabric_stats()
        pfc = monitor.pfc_events()
        queues = monitor.queues()
        links = monitor.links()
        for columns in (pfc, queues, links):
            lengths = {len(v) for v in columns.values()}
            self.assertEqual(len(lengths), 1, "one length per record set")
            for v in columns.values():
                self.assertIsInstance(v, numpy.ndarray)
        self.assertGreater(len(queues["time_ns"]), 0)
        self.assertTrue(numpy.all(queues["time_ns"] % 5000 == 0), "queue samples every 5 us")
        self.assertTrue(numpy.all(links["time_ns"] % 20000 == 0), "link samples every 20 us")
        # A frame counts in the interval it starts in: at most one frame over 1.
        frame = (4096 + 58 + 24) * 8 / (400e9 * 20e-6)
        self.assertTrue(numpy.all((links["util"] > 0) & (links["util"] <= 1 + frame)))
        # PFC: the log, the fabric's counters and the Python callable agree.
        self.assertGreater(stats["pfc_pause_tx"], 0, "the 4-uplink fabric pauses")
        self.assertEqual(int(pfc["xoff"].sum()), stats["pfc_pause_tx"])
        self.assertEqual(int((~pfc["xoff"]).sum()), stats["pfc_resume_tx"])
        self.assertEqual(len(calls), len(pfc["time_ns"]))
        self.assertEqual(sum(1 for _, q in calls if q > 0), stats["pfc_pause_tx"])
        # The end-of-run check: every message completed, nothing left buffered.
        inv = rocev2.invariants()
        self.assertTrue(inv["ok"], inv["violations"])
        self.assertTrue(inv["drained"])
        self.assertGreater(inv["messages_posted"], 0)
        self.assertEqual(inv["messages_completed"], inv["messages_posted"])
        self.assertEqual(inv["buffer_leftover_bytes"], 0)
        rocev2.destroy()

    def test_monitor_without_workload_needs_a_time(self):
        rocev2.AiZone(gpus=16)
        rocev2.Monitor(queues=1e-6)
        with self.assertRaises(rocev2.Error):
            rocev2.run()
        rocev2.run(until=1e-4)
        self.assertAlmostEqual(rocev2.now(), 1e-4)
        rocev2.destroy()


class Runs(Scenario):
    """Several scenarios in one process; the other workloads' results."""

    def test_same_scenario_twice(self):
        rocev2.set_run(1)
        first = small_allreduce("4M")
        second = small_allreduce("4M")
        self.assertEqual(first, second)
        self.assertEqual(rocev2.now(), 0.0, "destroy() ends the scenario")

    def test_random_marking_twice(self):
        """DCQCN's ECN marking draws random numbers: the second run of the same
        scenario draws the same ones (the zone fixes its switches' streams)."""
        def once():
            rocev2.set_run(2)
            zone = rocev2.AiZone(gpus=32, uplinks=4, cc="dcqcn")
            coll = rocev2.Collective(zone, zone.placement().contiguous(32), op="alltoall",
                                     sizes=["4M"])
            rocev2.run()
            out = (coll.results(), rocev2.fabric_stats())
            rocev2.destroy()
            return out
        first = once()
        self.assertGreater(first[1]["ecn_marked"], 0, "marking happened")
        self.assertEqual(first, once())

    def test_fault_schedule(self):
        zone = rocev2.AiZone(gpus=32)
        faults = rocev2.Faults(zone).load(data("examples", "faults", "ai-zone-uplink-down.txt"))
        coll = rocev2.Collective(zone, zone.placement().contiguous(32), sizes=["64M"])
        rocev2.run()
        self.assertTrue(coll.finished, "the AllReduce goes around the failed uplink")
        log = faults.log()
        self.assertTrue(any("link-down rtsw0" in line for line in log), log)
        self.assertTrue(any("link-up rtsw0" in line for line in log), log)
        # Rerouted in time: no message failed, and the invariants hold.
        inv = rocev2.invariants(faults=True)
        self.assertTrue(inv["ok"], inv["violations"])
        self.assertEqual(inv["messages_failed"], 0)
        self.assertEqual(inv["failures"], [])
        rocev2.destroy()

    def test_jobs(self):
        zone = rocev2.AiZone(gpus=16)
        jobs = rocev2.Jobs(zone, data("examples", "jobs", "dp-buckets.json"))
        rocev2.run()
        self.assertTrue(jobs.finished)
        result = jobs.results()
        self.assertIn("jobs", result)
        self.assertGreater(result["jobs"][0]["mean_time_us"], 0)
        rocev2.destroy()

    def test_hpcc_scenario(self):
        # Three hosts on one switch (node 3), 100 Gb/s links; two flows into host 2.
        with tempfile.TemporaryDirectory() as tmp:
            topology = os.path.join(tmp, "topology.txt")
            flows = os.path.join(tmp, "flows.txt")
            with open(topology, "w") as f:
                f.write("4 1 3\n3\n0 3 100Gbps 1us 0\n1 3 100Gbps 1us 0\n2 3 100Gbps 1us 0\n")
            with open(flows, "w") as f:
                f.write("2\n0 2 3 100 200000 0.000001\n1 2 3 100 300000 0.000001\n")
            scenario = rocev2.HpccScenario(topology, flows=flows, cc="dcqcn")
        rocev2.run()
        fct = scenario.fct()
        self.assertEqual(fct["flows_total"], scenario.n_flows)
        self.assertEqual(fct["flows_completed"], 2)
        self.assertGreaterEqual(scenario.slowdown(0.5), 1.0)
        self.assertEqual(len(scenario.fct_text().splitlines()), scenario.n_flows)
        rocev2.destroy()

    def test_hpcc_scenario_poisson_on_hosts(self):
        # Node 1 is the switch; Poisson flows run between the hosts 0, 2 and 3
        # only (HPCC FCT lines start with the hosts' addresses 0b00NNNN01).
        with tempfile.TemporaryDirectory() as tmp:
            topology = os.path.join(tmp, "topology.txt")
            with open(topology, "w") as f:
                f.write("4 1 3\n1\n0 1 100Gbps 1us 0\n2 1 100Gbps 1us 0\n3 1 100Gbps 1us 0\n")
            scenario = rocev2.HpccScenario(topology, cc="dcqcn", load=0.3,
                                           cdf=data("data", "cdf", "websearch.txt"),
                                           duration=0.002)
        rocev2.run()
        lines = scenario.fct_text().splitlines()
        self.assertGreater(len(lines), 0)
        switch = "0b000101"  # 11.0.1.1, node 1's address
        ends = set()
        for line in lines:
            sip, dip = line.split()[:2]
            self.assertNotEqual(sip, dip)
            ends.update((sip, dip))
        self.assertNotIn(switch, ends)
        self.assertLessEqual(ends, {"0b000001", "0b000201", "0b000301"})
        rocev2.destroy()

    def test_chakra_replay(self):
        zone = rocev2.AiZone(gpus=8, gpus_per_server=1)
        replay = rocev2.ChakraReplay(zone, zone.placement().contiguous(8),
                                     data("data", "chakra", "synthetic-8", "chakra.0.et"),
                                     channels=1, compute_scale=0.5)
        rocev2.run()
        result = replay.results()
        self.assertTrue(replay.finished)
        self.assertEqual(result["ranks"], 8)
        self.assertEqual(result["nodes_executed"]["COMP_NODE"], 16)
        self.assertAlmostEqual(result["compute_us"], 200.0)
        self.assertEqual(len(result["collectives"]), 4)
        rocev2.destroy()
        with self.assertRaises(rocev2.Error) as cm:
            rocev2.ChakraReplay(rocev2.AiZone(gpus=8, gpus_per_server=1), list(range(8)),
                                data("data", "chakra", "synthetic-8", "chakra.0.et"), speed=2)
        self.assertIn("unknown option speed", str(cm.exception))
        rocev2.destroy()


if __name__ == "__main__":
    unittest.main()
