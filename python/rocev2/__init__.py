# SPDX-License-Identifier: GPL-2.0-only
"""ns3-rocev2 from Python: RoCEv2 AI-training fabrics at packet level.

Build a fabric, run collectives, job files, HPCC-format scenarios or Chakra
trace replays on it, and read the results as the same dicts the C++
examples write as JSON, and the monitors as numpy arrays::

    import rocev2
    rocev2.set_run(1)
    zone = rocev2.AiZone(gpus=64)
    gpus = zone.placement().contiguous(64)
    coll = rocev2.Collective(zone, gpus, op="allreduce", sizes=["16M"])
    rocev2.run()
    print(coll.results()[0]["busbw_gbps"])
    rocev2.destroy()          # then the next scenario

Errors (an unknown name, an attribute out of range, a malformed file) raise
rocev2.Error, a ValueError, with the message the C++ side gives. After an
error, or when a scenario is done, rocev2.destroy() frees everything and the
next scenario can be built in the same process.
"""

import atexit
import json

from . import _rocev2 as _native
from ._rocev2 import Error

__all__ = [
    "Error", "Config", "set_seed", "set_run", "get_run", "run", "now", "destroy",
    "event_count", "parse_bytes", "AiZone", "Placement", "Collective", "Jobs", "Faults",
    "Monitor", "fabric_stats", "invariants", "invariants_json_member", "HpccScenario",
    "ChakraReplay", "connect",
]

# The last scenario's objects are freed before the interpreter goes.
atexit.register(_native.destroy)

# As the C++ examples: the module's RoceHeapScheduler and RoceSimulatorImpl
# (the same results as ns-3's, fewer instructions and a cheap
# Simulator::Remove), unless NS_GLOBAL_VALUE names others.
_native.use_fast_scheduler()

_UNITS = {"": 1, "B": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40,
          "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30, "TiB": 1 << 40}


def parse_bytes(value):
    """Return a byte count from an int or a string such as "16M" or "512KiB"
    (1M = 2**20 B, as nccl-tests reads it)."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value <= 0:
            raise Error("size %d: must be a positive byte count" % value)
        return value
    text = str(value).strip()
    number = text.rstrip("BKMGTi")
    unit = text[len(number):]
    try:
        count = float(number) * _UNITS[unit]
    except (KeyError, ValueError):
        raise Error("size '%s' is not a byte count (e.g. 1048576, 16M or 512KiB)" % value) from None
    if count <= 0 or count != int(count):
        raise Error("size '%s' is not a whole positive byte count" % value)
    return int(count)


class Config:
    """ns-3 attributes by path, with string values (checked: a bad name or
    value raises Error naming them)."""

    @staticmethod
    def set_default(path, value):
        """Set the default of an attribute: "ns3::RoceQueuePair::RetransmitTimeout", "500us"."""
        _native.config_set_default(path, str(value))

    @staticmethod
    def set(path, value):
        """Set an attribute on every object a Config path matches (after building)."""
        _native.config_set(path, str(value))


def set_seed(seed):
    """ns-3's RNG seed (RngSeedManager::SetSeed)."""
    _native.set_seed(seed)


def set_run(run):
    """ns-3's run number (RngRun): ECMP seeds, random placement, workloads."""
    if run < 1:
        raise Error("run %d: must be at least 1" % run)
    _native.set_run(run)


def get_run():
    """The run number."""
    return _native.get_run()


def run(until=None):
    """Run the scenario until nothing is left to do (the collectives, jobs,
    flows or replay have ended), or until `until` seconds of simulated time."""
    _native.run(-1.0 if until is None else float(until))


def now():
    """Simulated time, in seconds."""
    return _native.now()


def event_count():
    """Events run so far."""
    return _native.event_count()


def destroy():
    """End the scenario: free every node, device and application
    (Simulator::Destroy). The next scenario can then be built."""
    _native.destroy()


class AiZone:
    """An AI Zone fabric (RoceAiZoneHelper), built at construction.

    gpus, tiers (2 or 3), zones, uplinks per RTSW, ctsws (default min(16,
    uplinks)), oversubscription (3 tiers), rail (rail-optimised),
    gpus_per_server, servers_per_rack, preset (a named preset instead of the
    shape), link_rate ("400Gbps"), cc (none, dcqcn, hpcc, timely, dctcp) and
    dcqcn_preset (paper-2015, nvidia-cx, hpcc-sim; dcqcn alone is nvidia-cx),
    as the examples' --cc and --dcqcn-preset, dicts of NIC, QP and switch
    attributes, and fidelity: "packet" (frames, PFC, congestion control) or
    "flow" (every message a fluid flow at max-min fair rates on its frames'
    path; cc must be none), as the examples' --fidelity.
    """

    def __init__(self, gpus=None, tiers=2, zones=1, uplinks=16, ctsws=None, oversubscription=7.0,
                 rail=False, gpus_per_server=None, servers_per_rack=None, preset=None,
                 link_rate=None, cc="", nic=None, qp=None, switch=None, dcqcn_preset="",
                 fidelity="packet"):
        h = _native.AiZoneHelper()
        h.set_fidelity(fidelity)
        if preset is not None:
            h.set_preset(preset)
        else:
            if gpus is None:
                raise Error("AiZone: give gpus (or a preset)")
            h.set_tiers(tiers)
            h.set_zones(zones)
            if gpus_per_server is not None:
                h.set_gpus_per_server(gpus_per_server)
            h.set_gpus(gpus)
            h.set_uplinks(uplinks)
            h.set_ctsws(min(16, uplinks) if ctsws is None else ctsws)
            h.set_oversubscription(float(oversubscription))
            h.set_rail_optimized(bool(rail))
            if servers_per_rack is not None:
                h.set_servers_per_rack(servers_per_rack)
        if link_rate is not None:
            h.set_link_rate(str(link_rate))
        h.set_congestion_control(cc, dcqcn_preset)
        for name, value in (nic or {}).items():
            h.set_nic_attribute(name, str(value))
        for name, value in (qp or {}).items():
            h.set_qp_attribute(name, str(value))
        for name, value in (switch or {}).items():
            h.set_switch_attribute(name, str(value))
        self._zone = h.build()

    @staticmethod
    def presets():
        """The names of the built-in fabric presets."""
        return _native.AiZoneHelper.preset_names()

    @property
    def n_gpus(self):
        return self._zone.n_gpus

    @property
    def nics_per_rack(self):
        return self._zone.nics_per_rack

    def summary(self):
        """The fabric's summary as a dict (as rocev2-ai-zone-topology --json)."""
        return json.loads(self._zone.summary_json())

    def summary_text(self):
        return self._zone.summary_text()

    def switch_hops(self, a, b):
        """Switches on the path between GPUs a and b."""
        return self._zone.switch_hops(a, b)

    def placement(self):
        """A placement of jobs on this fabric's GPUs."""
        return Placement(self)


class Placement:
    """Which GPUs a job gets (RoceGpuPlacement); each call takes free GPUs."""

    def __init__(self, zone):
        self._p = _native.Placement(zone._zone)
        self._zone = zone

    def contiguous(self, n):
        return self._p.contiguous(n)

    def fragmented(self, n, per_rack=None):
        return self._p.fragmented(n, self._zone.nics_per_rack // 2 if per_rack is None else per_rack)

    def random(self, n, stream=1):
        return self._p.random(n, stream)

    def place(self, kind, n):
        """contiguous, fragmented or random, as the examples' --placement."""
        if kind not in ("contiguous", "fragmented", "random"):
            raise Error("placement '%s' is unknown (contiguous, fragmented or random)" % kind)
        return getattr(self, kind)(n)

    def mark_taken(self, gpus):
        self._p.mark_taken(list(gpus))

    def release(self, gpus):
        self._p.release(list(gpus))

    @property
    def n_free(self):
        return self._p.n_free


class Collective:
    """A collective on GPUs of a fabric, for each size in turn, as nccl-tests
    runs it (RoceCollectiveHelper): results() are the rocev2-ai-zone-allreduce
    JSON results."""

    def __init__(self, zone, gpus, op="allreduce", sizes=("1M",), algo="", channels=8,
                 chunk="512KiB", qps=1, qp_mode="split", cts=False, iters=1, warmup=0):
        h = _native.CollectiveHelper()
        h.set_communicator_attribute("QpsPerConnection", str(qps))
        h.set_communicator_attribute("QpMode", qp_mode)
        h.set_communicator_attribute("ClearToSend", "true" if cts else "false")
        h.set_collective_attribute("Channels", str(channels))
        h.set_collective_attribute("ChunkSize", str(parse_bytes(chunk)))
        h.set_app_attribute("Operation", op)
        h.set_app_attribute("Algorithm", algo)
        h.set_app_attribute("Iterations", str(iters))
        h.set_app_attribute("Warmup", str(warmup))
        self.communicator = h.create_communicator(zone._zone, list(gpus))
        self._app = h.install(self.communicator, [parse_bytes(s) for s in sizes])

    @property
    def finished(self):
        return self._app.finished

    def results_json(self):
        """The results as the C++ example writes them (JSON text)."""
        return self._app.results_json()

    def results(self):
        """Per size: op, algo, size, time_us, algbw_gbps, busbw_gbps, spread_us,
        iterations, rank_finish_us."""
        return json.loads(self.results_json())

    def table(self):
        return self._app.table()


class Jobs:
    """The training jobs of a JSON job file (roce-job-helper.h) on a fabric."""

    def __init__(self, zone, path, channels=4, chunk="512KiB"):
        self._jobs = _native.install_jobs(zone._zone, path, channels, parse_bytes(chunk))

    @property
    def finished(self):
        return self._jobs.finished

    def results(self):
        """{"jobs": [...]}, as rocev2-ai-zone-job --json."""
        return json.loads(self._jobs.json())

    def table(self):
        return self._jobs.table()


class Faults:
    """A fault schedule on a fabric (RoceFaultHelper): load a fault file
    (doc: Faults); log() lists what was applied."""

    def __init__(self, zone=None, detection_delay=None):
        self._f = _native.FaultHelper()
        if zone is not None:
            self._f.add_names(zone._zone)
        if detection_delay is not None:
            self._f.set_detection_delay(float(detection_delay))

    def load(self, path):
        self._f.load(path)
        return self

    def log(self):
        return self._f.log()


class Monitor:
    """Samples of the fabric while it runs (RoceMonitor), as numpy arrays.

    Enable what to record before run(); after it, each getter returns a dict
    of equal-length numpy arrays (one per field), so that a plot is
    plt.plot(q["time_ns"], q["bytes"])."""

    def __init__(self, pfc=False, queues=None, links=None, rates=None):
        self._m = _native.Monitor()
        if pfc:
            self._m.enable_pfc_log()
        if queues is not None:
            self._m.enable_queue_sampling(float(queues))
        if links is not None:
            self._m.enable_link_utilisation(float(links))
        if rates is not None:
            self._m.enable_rate_sampling(float(rates))

    def stop(self):
        self._m.stop()

    def pfc_events(self, received=False):
        """PFC frames sent (or received): time_ns, node, if_index, priority, xoff, is_switch."""
        return self._m.pfc_columns(received)

    def queues(self):
        """Non-empty switch egress queues: time_ns, node, if_index, priority, bytes."""
        return self._m.queue_columns()

    def links(self):
        """Per device and interval: time_ns, node, if_index, bytes, frames, util."""
        return self._m.link_columns()

    def rates(self):
        """Per QP: time_ns, node, qpn, rate_bps, window."""
        return self._m.rate_columns()

    def json(self):
        return json.loads(self._m.json())


def fabric_stats():
    """The fabric's counters (packet hops, PFC pauses, drops, ECN marks, CNPs,
    retransmissions, ...), as the examples' JSON writes them."""
    return json.loads(_native.fabric_stats_json())


def invariants_json_member(faults=False):
    """The end-of-run invariants as the C++ examples write them into their
    JSON: the text '  "invariants": {...}' (a member, no comma)."""
    return _native.invariants_json_member(faults)


def invariants(faults=False):
    """Check the end-of-run invariants of the current scenario (call after
    run()): a dict with ok, drained, the message counts (posted, completed,
    failed, pending), the drops a fault explains, lossy drops, lossless
    violations, leftover buffer bytes, failures and violations. faults=True
    when the scenario injected faults (no-route and unknown-QP drops allowed)."""
    return json.loads("{" + _native.invariants_json_member(faults) + "}")["invariants"]


class HpccScenario:
    """An HPCC-format scenario: a topology file, and a flow file or Poisson
    flows (load, cdf, duration), with a config.txt or a congestion control:
    cc and dcqcn_preset as rocev2-hpcc-compat's --cc and --dcqcn-preset
    (neither: DCQCN with the hpcc-sim preset)."""

    def __init__(self, topology, flows="", config="", cc="", load=0.0, cdf="",
                 duration=0.0, stream=1, dcqcn_preset=""):
        self._s = _native.hpcc_scenario(topology, flows, config, cc, dcqcn_preset, float(load),
                                        cdf, float(duration), stream)

    @property
    def n_flows(self):
        return self._s.n_flows

    def fct(self):
        """The FCT summary (flows, slowdown percentiles, buckets) as a dict."""
        return json.loads(self._s.fct_json())

    def fct_text(self):
        """The HPCC FCT file's text."""
        return self._s.fct_text()

    def slowdown(self, p):
        return self._s.slowdown_percentile(p)


class ChakraReplay:
    """Chakra execution traces replayed on GPUs of a fabric
    (RoceChakraReplayHelper). Options: qps, qp_mode, channels, chunk, algo,
    compute_scale, cpu_ops, gpu_streams, ctrl_deps, stream_order,
    comm_groups."""

    def __init__(self, zone, gpus, et, replicate=False, **options):
        opts = {k: str(int(v) if isinstance(v, bool) else v) for k, v in options.items()}
        if "chunk" in opts:
            opts["chunk"] = str(parse_bytes(options["chunk"]))
        self._r = _native.chakra_replay(zone._zone, list(gpus), et, replicate, opts)

    @property
    def finished(self):
        return self._r.finished

    @property
    def notes(self):
        return self._r.notes

    def problems(self):
        return self._r.problems()

    def results(self):
        """As rocev2-chakra-replay --json: ranks, makespan_us, compute_us, comm_us,
        exposed_comm_us, nodes_executed, collectives, per_rank, ..."""
        return json.loads(self._r.json())

    def table(self):
        return self._r.table()


def connect(path, callback):
    """Call callback(context, ...) at every event of the trace sources a
    Config path names, e.g. "/NodeList/*/DeviceList/*/$ns3::RocePfcNetDevice/PfcTx"
    (callback(context, priority, quanta)). Each event costs a Python call
    (about a microsecond): connect low-rate events (PFC, link state, drops),
    not per-packet ones. Returns how many objects matched."""
    return _native.connect(path, callback)
