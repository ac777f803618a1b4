#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0-only
"""Unit tests of utils/plot.py and utils/sweep.py: the parsers, percentiles per
flow-size bucket, JSON flattening and the sweep's aggregation, against values
computed by hand. Run: python3 -m unittest utils/test_plot_sweep.py (ctest:
check/python/plot-sweep)."""

import contextlib
import io
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import plot  # noqa: E402
import sweep  # noqa: E402


class TempFiles(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.tmp.cleanup()

    def write(self, name, text):
        path = os.path.join(self.tmp.name, name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        return path

    def assertInputError(self, fn, path, message):
        """fn() raises InputError whose text starts with path and holds message."""
        with self.assertRaises(plot.InputError) as cm:
            fn()
        text = str(cm.exception)
        self.assertTrue(text.startswith(path), text)
        self.assertIn(message, text)


class Percentile(unittest.TestCase):
    def test_nearest_rank(self):
        # Sorted 1, 2, 3, 4 (n = 4): the value at rank ceil(p/100 * 4).
        vals = [4, 1, 3, 2]
        self.assertEqual(plot.percentile(vals, 0), 1)
        self.assertEqual(plot.percentile(vals, 100), 4)
        self.assertEqual(plot.percentile(vals, 50), 2)    # rank 2
        self.assertEqual(plot.percentile(vals, 51), 3)    # rank ceil(2.04) = 3
        self.assertEqual(plot.percentile(vals, 95), 4)    # rank ceil(3.8) = 4
        self.assertEqual(plot.percentile(list(range(1, 101)), 99), 99)

    def test_one_value(self):
        self.assertEqual(plot.percentile([7.5], 99), 7.5)

    def test_refuses_nothing_and_out_of_range(self):
        with self.assertRaises(ValueError):
            plot.percentile([], 50)
        with self.assertRaises(ValueError):
            plot.percentile([1], 101)


class Buckets(unittest.TestCase):
    def test_default_edges_are_the_fct_stats_buckets(self):
        fct = [3000, 12000, 48000, 192000, 768000, 3000000, 12000000]
        self.assertEqual(plot.default_edges(1), fct)
        self.assertEqual(plot.default_edges(12000000), fct)
        self.assertEqual(plot.default_edges(30000000), fct + [30000000])

    def test_upper_edge_inclusive(self):
        # Edges 1000, 2000, 5000: 1000 B is in (0, 1000], 1001 B in (1000, 2000].
        flows = [(1000, 1.0), (500, 3.0), (1001, 10.0), (2000, 20.0), (4000, 2.0)]
        rows = plot.bucket_percentiles(flows, [1000, 2000, 5000], ps=(50, 99))
        self.assertEqual([(e, n) for e, n, _ in rows], [(1000, 2), (2000, 2), (5000, 1)])
        # (0, 1000]: slowdowns 1, 3: p50 at rank 1 = 1, p99 at rank 2 = 3.
        self.assertAlmostEqual(rows[0][2][50], 1.0)
        self.assertAlmostEqual(rows[0][2][99], 3.0)
        # (1000, 2000]: 10, 20: p50 = 10, p99 = 20.
        self.assertAlmostEqual(rows[1][2][50], 10.0)
        self.assertAlmostEqual(rows[1][2][99], 20.0)
        self.assertEqual(rows[2][2], {50: 2.0, 99: 2.0})

    def test_empty_buckets_left_out_and_overflow_refused(self):
        rows = plot.bucket_percentiles([(100, 1.0), (150000, 4.0)])
        self.assertEqual([e for e, _, _ in rows], [3000, 192000])
        with self.assertRaises(ValueError):
            plot.bucket_percentiles([(6000, 1.0)], [1000, 5000])

    def test_size_labels_binary_as_nccl_tests(self):
        self.assertEqual([plot.size_label(b) for b in (100, 1536, 1 << 20, 64 << 20, 2 << 30)],
                         ["100", "1.5K", "1M", "64M", "2G"])

    def test_cdf_points(self):
        self.assertEqual(plot.cdf_points([3, 1, 2, 2]), ([1, 2, 2, 3], [0.25, 0.5, 0.75, 1.0]))


class FctReader(TempFiles):
    GOOD = ("0b000101 0b000201 10000 100 1000 2000000000 3000 1500\n"
            "# a comment\n"
            "\n"
            "0b000201 0b000101 10001 100 20000 2000001000 9000 3000\n")

    def test_slowdown_is_fct_over_standalone_fct(self):
        path = self.write("good.fct", self.GOOD)
        self.assertEqual(plot.read_fct(path), [(1000, 2.0), (20000, 3.0)])

    def test_malformed_lines_name_file_and_line(self):
        cases = [
            ("0b000101 0b000201 10000 100 1000 2000000000 3000\n", ":1: expected 8 fields"),
            (self.GOOD + "0b00010 0b000201 1 100 1000 0 3000 1500\n", ":5: sip '0b00010' is not 8"),
            ("0b000101 zz000201 1 100 1000 0 3000 1500\n", ":1: dip 'zz000201' is not 8 hex"),
            ("0b000101 0b000201 1 100 1e3 0 3000 1500\n", ":1: size '1e3' is not an integer"),
            ("0b000101 0b000201 1 100 1000 0 -3 1500\n", ":1: fct_ns -3 is negative"),
            ("0b000101 0b000201 1 100 1000 0 3000 0\n", ":1: standalone_fct_ns must be positive"),
            ("# nothing\n", ": no flows"),
        ]
        for i, (text, msg) in enumerate(cases):
            path = self.write("bad%d.fct" % i, text)
            self.assertInputError(lambda: plot.read_fct(path), path, msg)

    def test_missing_file(self):
        path = os.path.join(self.tmp.name, "none.fct")
        self.assertInputError(lambda: plot.read_fct(path), path, "cannot read")


class CsvReaders(TempFiles):
    def test_queue_series(self):
        path = self.write("q.csv", "time_ns,node,port,priority,bytes\n"
                          "0,1,2,3,0\n1000,1,2,3,4096\n1000,4,0,3,10\n")
        self.assertEqual(plot.read_queue(path),
                         {(1, 2, 3): ([0, 1000], [0.0, 4096.0]), (4, 0, 3): ([1000], [10.0])})

    def test_queue_bad_header_and_fields(self):
        path = self.write("q1.csv", "time,node,port,priority,bytes\n0,1,2,3,0\n")
        self.assertInputError(lambda: plot.read_queue(path), path + ":1:", "expected header")
        path = self.write("q2.csv", "time_ns,node,port,priority,bytes\n0,1,2,3,0\n5,1,2,3\n")
        self.assertInputError(lambda: plot.read_queue(path), path + ":3:", "expected 5 fields")
        path = self.write("q3.csv", "time_ns,node,port,priority,bytes\n0,1,x,3,0\n")
        self.assertInputError(lambda: plot.read_queue(path), path + ":2:", "port 'x' is not")

    def test_pfc_intervals(self):
        path = self.write("p.csv", "time_ns,node,port,priority,type\n"
                          "10,1,0,3,XOFF\n"
                          "20,1,0,3,XOFF\n"     # refresh: the pause started at 10
                          "50,1,0,3,XON\n"
                          "60,1,0,3,XON\n"      # not paused: ignored
                          "70,2,1,3,XOFF\n"     # still paused at the end (t = 90)
                          "90,1,0,3,XOFF\n")
        intervals, end = plot.read_pfc(path)
        self.assertEqual(end, 90)
        self.assertEqual(intervals, {(1, 0, 3): [(10, 50), (90, 90)], (2, 1, 3): [(70, 90)]})

    def test_pfc_bad_event(self):
        path = self.write("p.csv", "time_ns,node,port,priority,type\n10,1,0,3,PAUSE\n")
        self.assertInputError(lambda: plot.read_pfc(path), path + ":2:",
                              "type 'PAUSE' is not XOFF or XON")


class JsonReaders(TempFiles):
    def test_busbw(self):
        path = self.write("c.json", '{"results": [{"op": "allreduce", "algo": "ring", '
                          '"size": 2048, "busbw_gbps": 80}, {"op": "allreduce", "algo": "ring", '
                          '"size": 1024, "busbw_gbps": 50.5}]}')
        self.assertEqual(plot.read_busbw(path), {("allreduce", "ring"): [(1024, 50.5),
                                                                         (2048, 80.0)]})
        path = self.write("d.json", '{"results": [{"size": 1024}]}')
        self.assertInputError(lambda: plot.read_busbw(path), path, "busbw_gbps")
        path = self.write("e.json", '{"results": [\n{"size": 1024,}]}')
        self.assertInputError(lambda: plot.read_busbw(path), path + ":2:", "not JSON")

    def test_slowdown_by_size(self):
        path = self.write("s.json", '{"slowdown_by_size": [{"max_bytes": 5000, "flows": 3, '
                          '"p50": 1.5, "p95": 2, "p99": 3}, {"max_bytes": 1000, "flows": 1, '
                          '"p50": 1, "p95": 1, "p99": 1}]}')
        self.assertEqual(plot.read_slowdown_json(path),
                         [(1000, 1, {50: 1.0, 95: 1.0, 99: 1.0}),
                          (5000, 3, {50: 1.5, 95: 2.0, 99: 3.0})])
        path = self.write("t.json", '{"slowdown_by_size": [{"max_bytes": 5000, "p50": 1}]}')
        self.assertInputError(lambda: plot.read_slowdown_json(path), path, "p95 missing")


class PlotCommandLine(TempFiles):
    def run_plot(self, *args):
        return subprocess.run([sys.executable, os.path.join(HERE, "plot.py")] + list(args),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def test_bad_input_one_line_exit_2(self):
        bad = self.write("bad.fct", "0b000101 0b000201 1 100 1000 0 3000\n")
        for args, msg in ((["slowdown", bad], bad + ":1: expected 8 fields"),
                          (["cdf", bad + ".missing"], bad + ".missing: cannot read"),
                          (["pfc", bad], bad + ":1: expected header")):
            p = self.run_plot(*args, "-o", os.path.join(self.tmp.name, "x.png"))
            self.assertEqual(p.returncode, 2, p.stderr)
            self.assertEqual(len(p.stderr.strip().splitlines()), 1, p.stderr)
            self.assertIn(msg, p.stderr)
            self.assertNotIn("Traceback", p.stderr)


def has_matplotlib():
    try:
        import matplotlib  # noqa: F401
        return True
    except ImportError:
        return False


@unittest.skipUnless(has_matplotlib(), "python3-matplotlib is not installed")
class PlotFigures(TempFiles):
    """Each subcommand writes a PNG (signature, IHDR) from small inputs."""

    def assertPng(self, args):
        out = os.path.join(self.tmp.name, "out.png")
        if os.path.exists(out):
            os.remove(out)
        self.assertEqual(plot.main(args + ["-o", out]), 0)
        with open(out, "rb") as f:
            data = f.read()
        self.assertEqual(data[:8], b"\x89PNG\r\n\x1a\n")
        self.assertEqual(data[12:16], b"IHDR")
        self.assertGreater(len(data), 1024)

    def test_every_subcommand(self):
        fct = self.write("a.fct", "".join(
            "0b000101 0b000201 %d 100 %d 0 %d %d\n" % (i, size, size * (1 + i % 3), size)
            for i, size in enumerate((500, 1500, 3000, 80000, 150000, 900000))))
        sjson = self.write("s.json", '{"slowdown_by_size": [{"max_bytes": 1000, "p50": 1, '
                           '"p95": 2, "p99": 3}, {"max_bytes": 10000, "p50": 1.2, "p95": 2.5, '
                           '"p99": 4}]}')
        queue = self.write("q.csv", "time_ns,node,port,priority,bytes\n" + "".join(
            "%d,%d,1,3,%d\n" % (t * 1000, n, (t * 37 * (n + 1)) % 5000)
            for t in range(50) for n in range(3)))
        pfc = self.write("p.csv", "time_ns,node,port,priority,type\n"
                         "1000,1,0,3,XOFF\n5000,1,0,3,XON\n2000,2,1,3,XOFF\n")
        coll = self.write("c.json", '{"results": [{"op": "allreduce", "algo": "ring", '
                          '"size": 1048576, "busbw_gbps": 50}, {"op": "allreduce", '
                          '"algo": "ring", "size": 16777216, "busbw_gbps": 80}]}')
        self.assertPng(["slowdown", fct, sjson, "--label", "fct", "--label", "json"])
        self.assertPng(["cdf", fct])
        self.assertPng(["queue", queue, "--top", "2"])
        self.assertPng(["queue", queue, "--node", "1", "--port", "1"])
        self.assertPng(["pfc", pfc])
        self.assertPng(["busbw", coll])

    def test_queue_filter_without_samples_is_an_error(self):
        queue = self.write("q.csv", "time_ns,node,port,priority,bytes\n0,1,1,3,5\n")
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            rc = plot.main(["queue", queue, "--node", "7", "-o",
                            os.path.join(self.tmp.name, "x.png")])
        self.assertEqual(rc, 2)
        self.assertIn(queue + ": no samples for node 7", err.getvalue())


class Flatten(unittest.TestCase):
    def test_scalars_nested_lists_bools(self):
        doc = {"a": 1, "b": {"c": 2.5, "d": {"e": "x"}}, "l": [1, 2], "t": True, "n": None}
        self.assertEqual(sweep.flatten(doc),
                         [("a", 1), ("b.c", 2.5), ("b.d.e", "x"), ("t", 1), ("n", "")])

    def test_cells(self):
        self.assertEqual(sweep.cell(0.1), "0.1")
        self.assertEqual(sweep.cell(1e-7), "1e-07")
        self.assertEqual(sweep.cell(3), "3")


class Collect(unittest.TestCase):
    def test_columns_renames_wall_and_missing(self):
        runs = [((("cc", "dcqcn"),), 1, "ok",
                 [("cc", "dcqcn"), ("drops", 0), ("wall_time_s", 1.5), ("x.wall_s", 2)]),
                ((("cc", "dcqcn"),), 2, "exit 1", []),
                ((("cc", "hpcc"),), 1, "ok", [("drops", 3), ("late", 7)])]
        cols, rows, wall_cols, wall_rows = sweep.collect(runs, ["cc"])
        self.assertEqual(cols, ["json.cc", "drops", "late"])
        self.assertEqual(wall_cols, ["wall_time_s", "x.wall_s"])
        self.assertEqual(rows, [["dcqcn", 1, "ok", "dcqcn", 0, ""],
                                ["dcqcn", 2, "exit 1", "", "", ""],
                                ["hpcc", 1, "ok", "", 3, 7]])
        self.assertEqual(wall_rows[0], ["dcqcn", 1, "ok", 1.5, 2])
        self.assertEqual(sweep.numeric_columns(cols, rows, 3), ["drops", "late"])

    def test_summary_mean_min_max_over_ok_runs(self):
        cols = ["m"]
        rows = [["a", 1, "ok", 1], ["a", 2, "ok", 2], ["a", 3, "ok", 6], ["a", 4, "exit 1", ""],
                ["b", 1, "exit 2", ""]]
        header, out = sweep.summarise(["k"], cols, rows, ["m"])
        self.assertEqual(header, ["k", "runs_ok", "m_mean", "m_min", "m_max"])
        self.assertEqual(out, [["a", 3, 3.0, 1, 6], ["b", 0, "", "", ""]])

    def test_mean_stays_within_min_max(self):
        # 0.7 three times sums to 2.0999999999999996 in floating point.
        self.assertEqual(sweep.mean([0.7, 0.7, 0.7]), 0.7)


class Spec(unittest.TestCase):
    def test_expand_order_and_names(self):
        runs = sweep.expand([("cc", ["none", "dcqcn"]), ("load", ["0.3", "0.5"])], [1, 2])
        self.assertEqual(len(runs), 8)
        self.assertEqual(runs[0], ((("cc", "none"), ("load", "0.3")), 1))
        self.assertEqual(runs[1], ((("cc", "none"), ("load", "0.3")), 2))
        self.assertEqual(runs[2], ((("cc", "none"), ("load", "0.5")), 1))
        self.assertEqual(runs[4][0][0], ("cc", "dcqcn"))
        self.assertEqual(sweep.run_name(runs[0][0], 1), "cc-none_load-0.3_seed-1")

    def test_command_seed_json_templates_outputs(self):
        point = (("cc", "hpcc"), ("load", "0.5"))
        name, base, cmd = sweep.command("/x/ex", point, 3, ["--flows=f-{load}.txt", "--q"], "out",
                                        {"fct": "fct.txt"})
        self.assertEqual(name, "cc-hpcc_load-0.5_seed-3")
        self.assertEqual(cmd, ["/x/ex", "--flows=f-0.5.txt", "--q", "--cc=hpcc", "--RngRun=3",
                               "--json=out/runs/cc-hpcc_load-0.5_seed-3.json",
                               "--fct=out/runs/cc-hpcc_load-0.5_seed-3.fct.txt"])
        with self.assertRaises(sweep.SweepError):
            sweep.command("/x/ex", point, 1, ["--f={nokey}"], "out", {})

    def test_grid_and_seeds_arguments(self):
        self.assertEqual(sweep.parse_grid_arg("cc=dcqcn,hpcc"), ("cc", ["dcqcn", "hpcc"]))
        for bad in ("cc", "cc=", "cc=a,,b", "=a"):
            with self.assertRaises(sweep.SweepError):
                sweep.parse_grid_arg(bad)
        self.assertEqual(sweep.parse_seeds(3), [1, 2, 3])
        self.assertEqual(sweep.parse_seeds([5, 9]), [5, 9])
        for bad in (0, [1, 1], [0], "2"):
            with self.assertRaises(sweep.SweepError):
                sweep.parse_seeds(bad)

    def test_choose_x(self):
        grid = [("cc", ["a", "b"]), ("load", ["0.3", "0.5"]), ("n", ["2", "4"])]
        self.assertEqual(sweep.choose_x(grid, None), "n")
        self.assertEqual(sweep.choose_x(grid[:1], None), "cc")
        self.assertEqual(sweep.choose_x(grid, "load"), "load")
        with self.assertRaises(sweep.SweepError):
            sweep.choose_x(grid, "rate")


class SpecFile(TempFiles):
    def test_file(self):
        path = self.write("s.json", '{"example": "rocev2-incast", "grid": {"cc": ["none"], '
                          '"senders": [2, 3]}, "seeds": 2, "args": ["--size=1"]}')
        spec = sweep.load_spec(path)
        self.assertEqual(spec["grid"], [("cc", ["none"]), ("senders", ["2", "3"])])
        self.assertEqual(spec["seeds"], [1, 2])

    def test_bad_files(self):
        for text, msg in (('{"example": "x", "gird": {}}', "unknown member(s) gird"),
                          ('{"grid": {}}', '"example" must name'),
                          ('{"example": "x", "grid": {"cc": []}}', 'grid "cc" must be'),
                          ('{"example": "x",\n "seeds": 2,}', ":2: not JSON")):
            path = self.write("bad.json", text)
            with self.assertRaises(sweep.SweepError) as cm:
                sweep.load_spec(path)
            self.assertIn(path, str(cm.exception))
            self.assertIn(msg, str(cm.exception))


class SlowdownFigures(TempFiles):
    def test_groups_per_x_value_series_per_other_keys(self):
        grid = [("cc", ["dcqcn", "hpcc"]), ("load", ["0.3", "0.5"])]
        runs = [((("cc", c), ("load", l)), "%s-%s-%d" % (c, l, s))
                for c in ("dcqcn", "hpcc") for l in ("0.3", "0.5") for s in (1, 2)]
        self.assertEqual(sweep.slowdown_groups(grid, "load", runs), [
            ("0.3", [("cc=dcqcn", ["dcqcn-0.3-1", "dcqcn-0.3-2"]),
                     ("cc=hpcc", ["hpcc-0.3-1", "hpcc-0.3-2"])]),
            ("0.5", [("cc=dcqcn", ["dcqcn-0.5-1", "dcqcn-0.5-2"]),
                     ("cc=hpcc", ["hpcc-0.5-1", "hpcc-0.5-2"])])])

    def test_pooled_slowdown_of_two_files(self):
        # Slowdowns 2 and 4 (1 KB flows) from one seed, 6 from the other:
        # p50 of 2, 4, 6: rank ceil(1.5) = 2, 4; p99: rank 3, 6.
        a = self.write("a.fct", "0b000101 0b000201 1 1 1000 0 2000 1000\n"
                       "0b000101 0b000201 2 1 900 0 4000 1000\n")
        b = self.write("b.fct", "0b000101 0b000201 1 1 1000 0 6000 1000\n")
        rows = plot.pooled_slowdown([a, b])
        self.assertEqual([(e, n) for e, n, _ in rows], [(3000, 3)])
        self.assertAlmostEqual(rows[0][2][50], 4.0)
        self.assertAlmostEqual(rows[0][2][99], 6.0)

    @unittest.skipUnless(has_matplotlib(), "python3-matplotlib is not installed")
    def test_sweep_with_fct_outputs(self):
        # A stand-in example: its JSON and FCT file follow from its arguments
        # (slowdown 1 + factor x load, factor 2 for dcqcn, 1 for hpcc).
        exe = self.write("example.py", "#!%s\n" % sys.executable + (
            "import json, sys\n"
            "a = dict(x[2:].split('=', 1) for x in sys.argv[1:])\n"
            "s = 1 + {'dcqcn': 2, 'hpcc': 1}[a['cc']] * float(a['load'])\n"
            "open(a['fct'], 'w').write('0b000101 0b000201 1 1 5000 0 %d 1000\\n' % (s * 1000))\n"
            "json.dump({'slowdown_p99': s, 'seed': int(a['RngRun']), 'wall_time_s': 0.5},\n"
            "          open(a['json'], 'w'))\n"))
        os.chmod(exe, 0o755)
        spec = self.write("s.json", '{"example": "x", "grid": {"cc": ["dcqcn", "hpcc"], '
                          '"load": [0.5, 1]}, "seeds": 2, "outputs": {"fct": "fct.txt"}}')
        out = os.path.join(self.tmp.name, "out")
        with contextlib.redirect_stderr(io.StringIO()):
            rc = sweep.main([spec, "--exe", exe, "--out", out, "--jobs", "2"])
        self.assertEqual(rc, 0)
        with open(os.path.join(out, "results.csv"), encoding="utf-8") as f:
            lines = f.read().splitlines()
        self.assertEqual(lines[0], "cc,load,seed,status,slowdown_p99,json.seed")
        self.assertEqual(lines[1:], ["dcqcn,0.5,1,ok,2.0,1", "dcqcn,0.5,2,ok,2.0,2",
                                     "dcqcn,1,1,ok,3.0,1", "dcqcn,1,2,ok,3.0,2",
                                     "hpcc,0.5,1,ok,1.5,1", "hpcc,0.5,2,ok,1.5,2",
                                     "hpcc,1,1,ok,2.0,1", "hpcc,1,2,ok,2.0,2"])
        for name in ("slowdown_p99.png", "slowdown-load-0.5.png", "slowdown-load-1.png",
                     "summary.csv", "wall.csv"):
            self.assertTrue(os.path.isfile(os.path.join(out, name)), name)


if __name__ == "__main__":
    unittest.main()


class SweepGridValues(TempFiles):
    def test_object_value_adds_its_own_arguments(self):
        path = self.write("s.json", '{"example": "rocev2-hpcc-compat", "grid": {"cc": '
                          '[{"value": "dcqcn", "args": ["--dcqcn-preset=hpcc-sim"]}, "hpcc"]}}')
        spec = sweep.load_spec(path)
        self.assertEqual(spec["grid"], [("cc", ["dcqcn", "hpcc"])])
        cmds = {p[0][1]: sweep.command("x", p, 1, [], self.tmp.name, {}, spec["point_args"])[2]
                for p, _ in sweep.expand(spec["grid"], [1])}
        self.assertEqual(cmds["dcqcn"][1:3], ["--cc=dcqcn", "--dcqcn-preset=hpcc-sim"])
        self.assertEqual(cmds["hpcc"][1:2], ["--cc=hpcc"])
        self.assertFalse(any(a.startswith("--dcqcn-preset") for a in cmds["hpcc"]))

    def test_malformed_object_value_is_refused(self):
        path = self.write("t.json", '{"example": "e", "grid": {"cc": [{"value": "dcqcn"}]}}')
        with self.assertRaises(sweep.SweepError) as cm:
            sweep.load_spec(path)
        self.assertIn('an object value is {"value": V, "args"', str(cm.exception))
