/*
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "roce-job-helper.h"

#include "../formats/roce-json-reader.h"

#include "ns3/fatal-error.h"
#include "ns3/node.h"
#include "ns3/roce-error.h"
#include "ns3/string.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

namespace ns3
{

namespace
{

/** Reads one job file's DOM and names the file, line and field in every error. */
class JobReader : public RoceJsonReader
{
  public:
    JobReader(const std::string& text, const std::string& file)
        : RoceJsonReader(text, file)
    {
    }

    std::vector<RoceJobHelper::JobSpec> Read()
    {
        const Json root = Parse();
        std::vector<RoceJobHelper::JobSpec> jobs;
        if (!root.is_object())
        {
            Fail("", "the file must hold a job object or {\"jobs\": [...]}, not " + root.dump());
        }
        if (root.contains("jobs"))
        {
            CheckFields(root, "", "the file", {"jobs"});
            const Json& list = root["jobs"];
            if (!list.is_array() || list.empty())
            {
                Fail("/jobs", "field \"jobs\" = " + Short(list) + ": must be a list of jobs");
            }
            for (size_t j = 0; j < list.size(); ++j)
            {
                jobs.push_back(ReadJob(list[j], "/jobs/" + std::to_string(j), j));
            }
        }
        else
        {
            jobs.push_back(ReadJob(root, "", 0));
        }
        return jobs;
    }

  private:
    /** \return microseconds >= 0 as a Time */
    Time Micros(const Json& v, const std::string& pointer) const
    {
        if (!v.is_number())
        {
            Fail(pointer, Field(pointer) + " = " + Short(v) + ": must be a number of microseconds");
        }
        const double us = v.get<double>();
        if (!(us >= 0) || us > 1e12)
        {
            Fail(pointer, Field(pointer) + " = " + Short(v) + ": must not be negative");
        }
        return NanoSeconds(static_cast<int64_t>(std::llround(us * 1e3)));
    }

    uint64_t Size(const Json& v, const std::string& pointer) const
    {
        const std::string bad = Field(pointer) + " = " + Short(v) +
                                ": must be a positive byte count (an integer, or e.g. \"16M\" = "
                                "16 MiB as nccl-tests reads it)";
        if (v.is_number_integer())
        {
            if (v.get<int64_t>() <= 0)
            {
                Fail(pointer, bad);
            }
            return v.get<uint64_t>();
        }
        static const std::regex form(R"(\s*([0-9]*\.?[0-9]+)\s*(B|K|M|G|T|KiB|MiB|GiB|TiB)?\s*)");
        std::smatch m;
        std::string text;
        // At most 64 characters before the regex: it backtracks, taking time
        // quadratic in a text that fails late (36 s for 5000 digits and a
        // '/'), and stack depth linear in it.
        if (!v.is_string() || (text = v.get<std::string>()).size() > 64 ||
            !std::regex_match(text, m, form))
        {
            Fail(pointer, bad);
        }
        // strtold, not stold: a number beyond a long double (thousands of
        // digits) is a bad size below, not a std::out_of_range.
        long double bytes = std::strtold(m[1].str().c_str(), nullptr);
        const std::string unit = m[2].str();
        if (!unit.empty() && unit != "B")
        {
            bytes *= std::pow(1024.0L, std::string("KMGT").find(unit[0]) + 1);
        }
        if (bytes <= 0 || bytes != std::floor(bytes) || bytes >= 9.2e18L)
        {
            Fail(pointer, bad);
        }
        return static_cast<uint64_t>(bytes);
    }

    RoceJobHelper::CommunicatorSpec ReadComm(const Json& c, const std::string& pointer) const
    {
        if (!c.is_object())
        {
            Fail(pointer, "a communicator must be an object, not " + Short(c));
        }
        const std::string what = "communicator " + pointer;
        CheckFields(c,
                    pointer,
                    what,
                    {"name", "gpus", "placement", "per_rack", "seed", "gpu_list"});
        RoceJobHelper::CommunicatorSpec spec;
        spec.where = m_positions->Where(pointer);
        spec.name = Name(Require(c, pointer, what, "name"), pointer + "/name");
        if (c.contains("gpu_list"))
        {
            for (const char* other : {"gpus", "placement", "per_rack", "seed"})
            {
                if (c.contains(other))
                {
                    Fail(pointer + "/" + other,
                         std::string("field \"") + other + "\" in " + what +
                             ": a communicator has either \"gpu_list\" or \"gpus\" and "
                             "\"placement\"");
                }
            }
            const std::string lp = pointer + "/gpu_list";
            const Json& list = c["gpu_list"];
            if (!list.is_array() || list.empty())
            {
                Fail(lp, Field(lp) + " = " + Short(list) + ": must be a list of GPU indices");
            }
            std::set<uint32_t> seen;
            for (size_t i = 0; i < list.size(); ++i)
            {
                const std::string ip = lp + "/" + std::to_string(i);
                const uint32_t g = Uint(list[i], ip, 0);
                if (!seen.insert(g).second)
                {
                    Fail(ip, Field(lp) + ": GPU " + std::to_string(g) + " is listed twice");
                }
                spec.gpuList.push_back(g);
            }
            spec.placement = "list";
            spec.gpus = spec.gpuList.size();
            return spec;
        }
        spec.gpus = Uint(Require(c, pointer, what, "gpus"), pointer + "/gpus", 1);
        const std::string pp = pointer + "/placement";
        const Json& placement = Require(c, pointer, what, "placement");
        if (!placement.is_string() ||
            (placement != "contiguous" && placement != "fragmented" && placement != "random"))
        {
            Fail(pp,
                 Field(pp) + " = " + Short(placement) +
                     ": unknown placement (known: contiguous, fragmented, random)");
        }
        spec.placement = placement.get<std::string>();
        if (spec.placement == "fragmented")
        {
            spec.perRack = Uint(Require(c, pointer, what + " (fragmented)", "per_rack"),
                                pointer + "/per_rack",
                                1);
        }
        else if (c.contains("per_rack"))
        {
            Fail(pointer + "/per_rack",
                 Field(pointer + "/per_rack") + ": only a fragmented placement takes it");
        }
        if (c.contains("seed"))
        {
            if (spec.placement != "random")
            {
                Fail(pointer + "/seed",
                     Field(pointer + "/seed") + ": only a random placement takes it");
            }
            spec.seed = Uint(c["seed"], pointer + "/seed", 0);
        }
        return spec;
    }

    RoceJobHelper::StepSpec ReadStep(const Json& s,
                                     const std::string& pointer,
                                     const RoceJobHelper::JobSpec& job) const
    {
        if (!s.is_object())
        {
            Fail(pointer, "a step must be an object, not " + Short(s));
        }
        const std::string what = "step " + pointer;
        CheckFields(s, pointer, what, {"op", "size", "comm", "gap_us", "overlap", "algo"});
        RoceJobHelper::StepSpec spec;
        // op
        const std::string op = pointer + "/op";
        const Json& opv = Require(s, pointer, what, "op");
        std::string known;
        bool found = false;
        // Every op with a single size (alltoallv needs a size per pair).
        for (int o = RoceCollective::ALL_REDUCE; o <= RoceCollective::SEND_RECV; ++o)
        {
            const std::string name = RoceCollective::GetOpName(RoceCollective::Op(o));
            known += (known.empty() ? "" : ", ") + name;
            if (opv.is_string() && opv == name)
            {
                spec.op = RoceCollective::Op(o);
                found = true;
            }
        }
        if (!found)
        {
            Fail(op, Field(op) + " = " + Short(opv) + ": unknown op (known: " + known + ")");
        }
        // algo
        spec.algo = RoceCollective::DefaultAlgorithm(spec.op);
        if (s.contains("algo"))
        {
            const std::string ap = pointer + "/algo";
            const Json& a = s["algo"];
            bool known = false;
            for (auto algo : {RoceCollective::RING,
                              RoceCollective::DIRECT,
                              RoceCollective::TREE,
                              RoceCollective::HALVING_DOUBLING,
                              RoceCollective::HIERARCHICAL})
            {
                if (a.is_string() && a == RoceCollective::GetAlgorithmName(algo))
                {
                    spec.algo = algo;
                    known = true;
                }
            }
            if (!known)
            {
                Fail(ap,
                     Field(ap) + " = " + Short(a) +
                         ": unknown algo (known: ring, direct, tree, hd, hier)");
            }
            if (!RoceCollective::HasAlgorithm(spec.op, spec.algo))
            {
                Fail(ap,
                     Field(ap) + " = " + Short(a) + ": " + RoceCollective::GetOpName(spec.op) +
                         " has no such algorithm (" + RoceCollective::GetAlgorithmTable() + ")");
            }
        }
        // comm
        const std::string cp = pointer + "/comm";
        const Json& comm = Require(s, pointer, what, "comm");
        bool named = false;
        std::string names;
        for (uint32_t c = 0; c < job.comms.size(); ++c)
        {
            names += (names.empty() ? "" : ", ") + job.comms[c].name;
            if (comm.is_string() && comm == job.comms[c].name)
            {
                spec.comm = c;
                named = true;
            }
        }
        if (!named)
        {
            Fail(cp,
                 Field(cp) + " = " + Short(comm) + ": unknown communicator (the job has: " + names +
                     ")");
        }
        // size, checked against the ranks the op splits it over
        const std::string sp = pointer + "/size";
        spec.bytes = Size(Require(s, pointer, what, "size"), sp);
        const uint32_t p = job.comms[spec.comm].gpus;
        if (spec.op == RoceCollective::ALL_REDUCE && spec.bytes < p)
        {
            Fail(sp,
                 Field(sp) + " = " + std::to_string(spec.bytes) + ": allreduce needs at least a " +
                     "byte per rank (" + std::to_string(p) + " ranks)");
        }
        if ((spec.op == RoceCollective::ALL_GATHER || spec.op == RoceCollective::REDUCE_SCATTER ||
             spec.op == RoceCollective::ALL_TO_ALL) &&
            spec.bytes % p != 0)
        {
            Fail(sp,
                 Field(sp) + " = " + std::to_string(spec.bytes) + ": " +
                     RoceCollective::GetOpName(spec.op) + " needs a multiple of the " +
                     std::to_string(p) + " ranks (each rank's share is size / ranks)");
        }
        if (s.contains("gap_us"))
        {
            spec.gap = Micros(s["gap_us"], pointer + "/gap_us");
        }
        if (s.contains("overlap"))
        {
            const std::string ovp = pointer + "/overlap";
            if (!s["overlap"].is_boolean())
            {
                Fail(ovp, Field(ovp) + " = " + Short(s["overlap"]) + ": must be true or false");
            }
            spec.overlap = s["overlap"].get<bool>();
        }
        return spec;
    }

    RoceJobHelper::JobSpec ReadJob(const Json& j, const std::string& pointer, size_t index) const
    {
        const std::string what = "job " + (pointer.empty() ? std::string("/") : pointer);
        if (!j.is_object())
        {
            Fail(pointer, "a job must be an object, not " + Short(j));
        }
        CheckFields(j, pointer, what, {"name", "iterations", "start_us", "communicators", "steps"});
        RoceJobHelper::JobSpec job;
        job.where = m_positions->Where(pointer);
        job.name =
            j.contains("name") ? Name(j["name"], pointer + "/name") : "job" + std::to_string(index);
        if (j.contains("iterations"))
        {
            job.iterations = Uint(j["iterations"], pointer + "/iterations", 1);
        }
        if (j.contains("start_us"))
        {
            job.start = Micros(j["start_us"], pointer + "/start_us");
        }
        const std::string cp = pointer + "/communicators";
        const Json& comms = Require(j, pointer, what, "communicators");
        if (!comms.is_array() || comms.empty())
        {
            Fail(cp, Field(cp) + " = " + Short(comms) + ": must be a list of communicators");
        }
        for (size_t c = 0; c < comms.size(); ++c)
        {
            const std::string p = cp + "/" + std::to_string(c);
            RoceJobHelper::CommunicatorSpec spec = ReadComm(comms[c], p);
            for (const auto& other : job.comms)
            {
                if (other.name == spec.name)
                {
                    Fail(p + "/name", "communicator name \"" + spec.name + "\" is used twice");
                }
            }
            job.comms.push_back(spec);
        }
        const std::string sp = pointer + "/steps";
        const Json& steps = Require(j, pointer, what, "steps");
        if (!steps.is_array() || steps.empty())
        {
            Fail(sp, Field(sp) + " = " + Short(steps) + ": must be a list of steps");
        }
        for (size_t s = 0; s < steps.size(); ++s)
        {
            job.steps.push_back(ReadStep(steps[s], sp + "/" + std::to_string(s), job));
        }
        return job;
    }
};

} // namespace

RoceJobHelper::RoceJobHelper() = default;

void
RoceJobHelper::SetCommunicatorAttribute(std::string name, const AttributeValue& value)
{
    m_coll.SetCommunicatorAttribute(name, value);
}

void
RoceJobHelper::SetQpAttribute(std::string name, const AttributeValue& value)
{
    m_coll.SetQpAttribute(name, value);
}

void
RoceJobHelper::SetCollectiveAttribute(std::string name, const AttributeValue& value)
{
    m_collective.emplace_back(name, value.Copy());
}

std::vector<RoceJobHelper::JobSpec>
RoceJobHelper::Parse(const std::string& text, const std::string& file)
{
    return JobReader(text, file).Read();
}

std::vector<RoceJobHelper::JobSpec>
RoceJobHelper::Read(const std::string& file)
{
    std::ifstream in(file);
    if (!in)
    {
        ROCE_ERROR(file << ": cannot read the job file");
    }
    std::ostringstream text;
    text << in.rdbuf();
    return Parse(text.str(), file);
}

uint32_t
RoceJobHelper::GetGpusNeeded(const std::vector<JobSpec>& jobs)
{
    uint32_t placed = 0;
    std::set<uint32_t> listed;
    for (const JobSpec& job : jobs)
    {
        for (const CommunicatorSpec& c : job.comms)
        {
            if (c.placement == "list")
            {
                listed.insert(c.gpuList.begin(), c.gpuList.end());
            }
            else
            {
                placed += c.gpus;
            }
        }
    }
    const uint32_t count = placed + listed.size();
    return listed.empty() ? count : std::max(count, *listed.rbegin() + 1);
}

std::vector<Ptr<RoceJobApp>>
RoceJobHelper::Install(const RoceAiZone& zone, const std::vector<JobSpec>& jobs)
{
    RoceGpuPlacement place(zone);
    return Install(zone, place, jobs);
}

std::vector<Ptr<RoceJobApp>>
RoceJobHelper::Install(const RoceAiZone& zone,
                       RoceGpuPlacement& place,
                       const std::vector<JobSpec>& jobs)
{
    std::vector<Ptr<RoceJobApp>> apps;
    for (const JobSpec& job : jobs)
    {
        std::set<uint32_t> mine; // GPUs of this job: its listed communicators may share them
        std::vector<Ptr<RoceCommunicator>> comms;
        for (const CommunicatorSpec& c : job.comms)
        {
            std::vector<uint32_t> gpus;
            if (c.placement == "list")
            {
                for (uint32_t g : c.gpuList)
                {
                    ROCE_ERROR_IF(g >= zone.GetNGpus(),
                                  c.where << ": communicator \"" << c.name << "\" lists GPU " << g
                                          << " but the fabric has " << zone.GetNGpus() << " GPUs");
                    ROCE_ERROR_IF(!place.IsFree(g) && mine.count(g) == 0,
                                  c.where << ": communicator \"" << c.name << "\" lists GPU " << g
                                          << ", which another job holds");
                    if (place.IsFree(g))
                    {
                        place.MarkTaken({g});
                    }
                }
                gpus = c.gpuList;
            }
            else
            {
                ROCE_ERROR_IF(c.gpus > place.GetNFree(),
                              c.where << ": communicator \"" << c.name << "\" needs " << c.gpus
                                      << " GPUs but only " << place.GetNFree() << " of the "
                                      << zone.GetNGpus() << " are free");
                if (c.placement == "contiguous")
                {
                    gpus = place.Contiguous(c.gpus);
                }
                else if (c.placement == "fragmented")
                {
                    ROCE_ERROR_IF(c.perRack >= zone.GetNicsPerRack(),
                                  c.where << ": communicator \"" << c.name << "\" has per_rack = "
                                          << c.perRack << ", not less than a rack ("
                                          << zone.GetNicsPerRack() << " GPUs)");
                    gpus = place.Fragmented(c.gpus, c.perRack);
                }
                else
                {
                    gpus = place.Random(c.gpus, c.seed);
                }
            }
            mine.insert(gpus.begin(), gpus.end());
            comms.push_back(m_coll.CreateCommunicator(zone, gpus));
        }
        Ptr<RoceJobApp> app = CreateObject<RoceJobApp>();
        app->SetAttribute("JobName", StringValue(job.name));
        app->SetAttribute("Iterations", UintegerValue(job.iterations));
        for (const auto& [name, value] : m_collective)
        {
            app->SetCollectiveAttribute(name, *value);
        }
        for (const StepSpec& s : job.steps)
        {
            RoceJobApp::Step step;
            step.op = s.op;
            step.algo = s.algo;
            step.bytes = s.bytes;
            step.comm = comms[s.comm];
            step.commName = job.comms[s.comm].name;
            step.gap = s.gap;
            step.overlap = s.overlap;
            app->AddStep(step);
        }
        app->SetStartTime(job.start);
        comms[job.steps[0].comm]->GetRank(0).nic->GetNode()->AddApplication(app);
        apps.push_back(app);
        m_comms.push_back(comms);
    }
    return apps;
}

Ptr<RoceCommunicator>
RoceJobHelper::GetCommunicator(uint32_t i, uint32_t c) const
{
    ROCE_ERROR_IF(i >= m_comms.size() || c >= m_comms[i].size(),
                  "RoceJobHelper::GetCommunicator: no communicator " << c << " of job " << i);
    return m_comms[i][c];
}

void
RoceJobHelper::PrintTable(std::ostream& os, const std::vector<Ptr<RoceJobApp>>& apps)
{
    for (const Ptr<RoceJobApp>& app : apps)
    {
        app->PrintTable(os);
    }
}

void
RoceJobHelper::WriteJson(std::ostream& os, const std::vector<Ptr<RoceJobApp>>& apps)
{
    os << "{\n  \"jobs\": [";
    for (size_t i = 0; i < apps.size(); ++i)
    {
        os << (i ? ",\n    " : "\n    ");
        apps[i]->WriteJson(os);
    }
    os << (apps.empty() ? "]" : "\n  ]") << "\n}\n";
}

} // namespace ns3
