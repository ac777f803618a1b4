/*
 * SPDX-License-Identifier: GPL-2.0-only
 *
 * A fault soak: many seeds of a randomized faulty AI Zone, each checked for
 * a run that ends, messages delivered exactly once or failed with a reason,
 * and the end-of-run invariants.
 *
 *   ./rocev2 run rocev2-fault-soak                      # seeds 1..10, 32 GPUs
 *   ./rocev2 run rocev2-fault-soak --seeds=50 --json=soak.json
 *   ./rocev2 run rocev2-fault-soak --first-seed=17 --seeds=1 --verbose=1
 *
 * Each seed (RngRun) builds a 2-tier zone of --gpus GPUs (--uplinks per
 * RTSW over --ctsws CTSWs), runs an AllReduce of --coll-size over every GPU and
 * Poisson WebSearch flows (--load of each GPU's link, arrivals for
 * --duration) with congestion control --cc, and draws its faults from its
 * own random stream: 1-3 flapping fabric links, bit errors on one link (BER
 * log-uniform in [1e-7, 1e-4]), a slow receiver, a PFC storm from a NIC
 * against switch ports that all run the PFC watchdog, and a leaf or spine
 * that fails and comes back (rocev2-fault-soak.h has the details). It runs
 * until nothing is left to do, or --limit of simulated time.
 *
 * It prints one row per seed and a totals row, and with --json the rows.
 * It exits 1 if a seed broke a property (ended, drained, accounted,
 * invariants, exactly-once), naming the seed and the property.
 */
#include "rocev2-fault-soak.h"

#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/roce-command-line.h"
#include "ns3/rocev2-module.h"

#include <chrono>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <string>
#include <utility>
#include <vector>

using namespace ns3;

namespace
{

/**
 * \brief Print the results as a table, one row per seed and a totals row.
 * \param os where \param rows the results
 */
void
PrintTable(std::ostream& os, const std::vector<RoceFaultSoakResult>& rows)
{
    os << " seed flap ber sr st sw      BER switch  flows ffail  delivMB  posted   compl mfail"
          "     retx   t/o wd-trig wd-drop coll  inv  ok  wall(s)\n";
    RoceFaultSoakResult t;
    uint32_t collectives = 0;
    uint32_t invOk = 0;
    uint32_t ok = 0;
    double wall = 0;
    // Columns from "flows" on, for a seed's row and the totals row.
    auto counts = [&os](const RoceFaultSoakResult& r) {
        os << std::setw(7) << r.flows << std::setw(6) << r.flowsFailed << std::setw(9) << std::fixed
           << std::setprecision(1) << r.bytesDelivered / 1e6 << std::setw(8) << r.messagesPosted
           << std::setw(8) << r.messagesCompleted << std::setw(6) << r.messagesFailed
           << std::setw(9) << r.retransmits << std::setw(6) << r.timeouts << std::setw(8)
           << r.watchdogTriggers << std::setw(8) << r.watchdogDrops;
    };
    auto kinds = [&os](const RoceFaultSoakResult& r) {
        os << std::setw(5) << r.linkFlaps << std::setw(4) << r.bitErrorLinks << std::setw(3)
           << r.slowReceivers << std::setw(3) << r.pfcStorms << std::setw(3) << r.switchFailures;
    };
    for (const RoceFaultSoakResult& r : rows)
    {
        os << std::setw(5) << r.seed;
        kinds(r);
        os << std::setw(9) << std::scientific << std::setprecision(1) << r.ber << std::setw(7)
           << r.switchName;
        counts(r);
        os << std::setw(5) << (r.collectiveFinished ? "done" : "fail") << std::setw(5)
           << (r.invariants.Ok() ? "ok" : "FAIL") << std::setw(4) << (r.Ok() ? "ok" : "NO")
           << std::setw(9) << std::setprecision(2) << r.wallSeconds << "\n";
        t.linkFlaps += r.linkFlaps;
        t.bitErrorLinks += r.bitErrorLinks;
        t.slowReceivers += r.slowReceivers;
        t.pfcStorms += r.pfcStorms;
        t.switchFailures += r.switchFailures;
        t.flows += r.flows;
        t.flowsFailed += r.flowsFailed;
        t.bytesDelivered += r.bytesDelivered;
        t.messagesPosted += r.messagesPosted;
        t.messagesCompleted += r.messagesCompleted;
        t.messagesFailed += r.messagesFailed;
        t.retransmits += r.retransmits;
        t.timeouts += r.timeouts;
        t.watchdogTriggers += r.watchdogTriggers;
        t.watchdogDrops += r.watchdogDrops;
        collectives += r.collectiveFinished ? 1 : 0;
        invOk += r.invariants.Ok() ? 1 : 0;
        ok += r.Ok() ? 1 : 0;
        wall += r.wallSeconds;
    }
    os << "total";
    kinds(t);
    os << std::setw(16) << " ";
    counts(t);
    os << std::setw(5) << collectives << std::setw(5) << invOk << std::setw(4) << ok << std::setw(9)
       << std::setprecision(2) << wall << "\n";
    os << "  flap/ber/sr/st/sw: link flaps, bit-error links, slow receivers, PFC storms, switch\n"
          "  failures; ffail/mfail: flows/messages failed; coll: the AllReduce finished or\n"
          "  failed; inv: RoceInvariants; ok: every property. Totals row: AllReduces done, seeds\n"
          "  with invariants ok, seeds ok.\n";
}

/**
 * \brief Write the results as a JSON object {"rows": [...]}, one object per seed.
 * \param os where \param rows the results
 */
void
WriteJson(std::ostream& os, const std::vector<RoceFaultSoakResult>& rows)
{
    auto text = [](const std::string& s) {
        std::string out = "\"";
        for (char c : s)
        {
            out += (c == '"' || c == '\\')
                       ? std::string("\\") + c
                       : std::string(1, static_cast<unsigned char>(c) < 0x20 ? ' ' : c);
        }
        return out + "\"";
    };
    os << "{\n  \"rows\": [";
    for (std::size_t i = 0; i < rows.size(); ++i)
    {
        const RoceFaultSoakResult& r = rows[i];
        const std::string in(6, ' ');
        os << (i ? ",\n" : "\n") << "    {\n"
           << in << "\"seed\": " << r.seed << ",\n"
           << in << "\"faults\": {\"link_flap\": " << r.linkFlaps
           << ", \"bit_errors\": " << r.bitErrorLinks << ", \"slow_receiver\": " << r.slowReceivers
           << ", \"pfc_storm\": " << r.pfcStorms << ", \"switch_down\": " << r.switchFailures
           << "},\n"
           << in << "\"ber\": " << r.ber << ",\n"
           << in << "\"failed_switch\": " << text(r.switchName) << ",\n";
        const std::vector<std::pair<const char*, uint64_t>> counts = {
            {"fault_log_lines", r.faultEvents},
            {"flows", r.flows},
            {"flows_completed", r.flowsCompleted},
            {"flows_failed", r.flowsFailed},
            {"bytes_delivered", r.bytesDelivered},
            {"messages_posted", r.messagesPosted},
            {"messages_completed", r.messagesCompleted},
            {"messages_failed", r.messagesFailed},
            {"retransmits", r.retransmits},
            {"timeouts", r.timeouts},
            {"watchdog_triggers", r.watchdogTriggers},
            {"watchdog_drops", r.watchdogDrops},
            {"qp_pairs_checked", r.qpPairs},
        };
        for (const auto& [name, value] : counts)
        {
            os << in << "\"" << name << "\": " << value << ",\n";
        }
        os << in << "\"collective_finished\": " << (r.collectiveFinished ? "true" : "false")
           << ",\n"
           << in << "\"ended\": " << (r.ended ? "true" : "false") << ",\n"
           << in << "\"ok\": " << (r.Ok() ? "true" : "false") << ",\n"
           << in << "\"sim_ms\": " << r.simMs << ",\n"
           << in << "\"wall_s\": " << r.wallSeconds << ",\n"
           << in << "\"broken\": [";
        for (std::size_t k = 0; k < r.broken.size(); ++k)
        {
            os << (k ? ", " : "") << text(r.broken[k]);
        }
        os << "],\n";
        r.invariants.WriteJsonMember(os, 6);
        os << "\n    }";
    }
    os << "\n  ]\n}\n";
}

} // namespace

int
main(int argc, char* argv[])
{
    RoceCli::UseFastScheduler();
    uint32_t seeds = 10;
    uint32_t firstSeed = 1;
    uint32_t gpus = 32;
    uint32_t uplinks = 8;
    uint32_t ctsws = 4;
    std::string duration = "2ms";
    std::string cc = "dcqcn";
    double load = 0.2;
    std::string size = "4MiB";
    std::string cdf = "data/cdf/websearch.txt";
    std::string rto = "100us";
    std::string limit = "500ms";
    std::string json;
    uint32_t verbose = 0;

    RoceCommandLine cmd(__FILE__);
    cmd.AddValue("seeds", "Seeds to run", seeds);
    cmd.AddValue("first-seed", "First seed (RngRun)", firstSeed);
    cmd.AddGpus(gpus);
    cmd.AddUplinks(uplinks);
    cmd.AddValue("ctsws", "CTSWs (uplinks must be a multiple)", ctsws);
    cmd.AddGeneratedFlows(cdf, load, duration);
    std::string dcqcnPreset;
    cmd.AddCongestionControl(cc, dcqcnPreset);
    cmd.AddValue("coll-size", "Bytes of the AllReduce, as nccl-tests counts them", size);
    cmd.AddValue("rto", "Queue pairs' retransmission timeout", rto);
    cmd.AddValue("limit", "Simulated time after which a run that has not ended fails", limit);
    cmd.AddJson(json);
    cmd.AddValue("verbose", "1: print each seed's fault log", verbose);
    cmd.Parse(argc, argv);

    ROCE_ERROR_IF(seeds == 0, "--seeds=0 (must be at least 1)");
    ROCE_ERROR_IF(firstSeed == 0, "--first-seed=0 (must be at least 1)");
    ROCE_ERROR_IF(!(load > 0 && load <= 1), "--load=" << load << " (must be in (0, 1])");
    ROCE_ERROR_IF(verbose > 1, "--verbose=" << verbose << " (must be 0 or 1)");
    RoceFaultSoakConfig cfg;
    cfg.gpus = gpus;
    cfg.uplinks = uplinks;
    cfg.ctsws = ctsws;
    cfg.duration = RoceCli::ParsePositiveTime("duration", duration);
    cfg.cc = RoceCli::MakeCongestionControl(cc, dcqcnPreset).GetAlgorithm();
    cfg.dcqcnPreset = dcqcnPreset;
    cfg.load = load;
    cfg.collectiveBytes = RoceCli::ParseBytes("coll-size", size);
    cfg.cdfPath = RoceCli::FindDataFile(cdf);
    ROCE_ERROR_IF(!std::ifstream(cfg.cdfPath).good(), "--cdf=" << cdf << " cannot be read");
    cfg.rto = RoceCli::ParsePositiveTime("rto", rto);
    cfg.limit = RoceCli::ParsePositiveTime("limit", limit);
    ROCE_ERROR_IF(cfg.limit <= cfg.duration,
                  "--limit=" << limit << " must be longer than --duration=" << duration);
    if (verbose == 1)
    {
        cfg.afterRun = [](const RoceFaultHelper& faults) {
            RoceCli::PrintFaults(faults, std::cout);
        };
    }

    std::cout << "rocev2-fault-soak: seeds " << firstSeed << ".." << firstSeed + seeds - 1 << ", "
              << gpus << " GPUs (2 tiers, " << uplinks << " uplinks over " << ctsws
              << " CTSWs), allreduce " << cfg.collectiveBytes << " B + WebSearch load " << load
              << " for " << duration << ", cc " << cc << ", RTO " << rto << "\n";
    const auto wall0 = std::chrono::steady_clock::now();
    std::vector<RoceFaultSoakResult> rows;
    for (uint32_t s = firstSeed; s < firstSeed + seeds; ++s)
    {
        if (verbose == 1)
        {
            std::cout << "# seed " << s << "\n";
        }
        rows.push_back(RoceFaultSoak::RunSeed(cfg, s));
        if (verbose == 1)
        {
            std::cout << "# ";
            rows.back().invariants.Print(std::cout);
        }
    }
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    PrintTable(std::cout, rows);
    std::cout << "# " << seeds << " seed(s) in " << std::fixed << std::setprecision(1) << wall
              << " s wall\n";

    if (!json.empty())
    {
        std::ofstream out(json);
        ROCE_ERROR_IF(!out, "cannot write --json=" << json);
        WriteJson(out, rows);
    }
    bool ok = true;
    for (const RoceFaultSoakResult& r : rows)
    {
        for (const std::string& line : r.broken)
        {
            std::cerr << "rocev2-fault-soak: seed " << r.seed << ": " << line << "\n";
            ok = false;
        }
    }
    return ok ? 0 : 1;
}
