#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/rocev2-module.h"

using namespace ns3;

void
OnComplete(const RoceCompletion& c)
{
    std::cout << c.bytes << " B written in " << (c.completed - c.posted).GetMicroSeconds()
              << " us\n";
}

int
main(int argc, char* argv[])
{
    CommandLine cmd;
    cmd.Parse(argc, argv);

    NodeContainer sw(1);
    NodeContainer hosts(3);
    RoceSwitchHelper switches; // PFC on priority 3, which QPs use by default
    switches.SetMmuAttribute("BufferSize", StringValue("1MB"));
    switches.Install(sw); // before any link: links to a switch become its ports

    RoceHelper roce;
    roce.SetDeviceAttribute("DataRate", StringValue("100Gbps"));
    roce.SetChannelAttribute("Delay", StringValue("1us"));
    NetDeviceContainer nics;
    for (uint32_t i = 0; i < hosts.GetN(); ++i)
    {
        nics.Add(roce.Install(hosts.Get(i), sw.Get(0)).Get(0)); // the host's NIC
    }
    RoceSwitchHelper::PopulateRoutes(); // shortest-path ECMP routes, once every link exists

    for (uint32_t i = 1; i < hosts.GetN(); ++i)
    {
        auto [qp, remote] = roce.CreateQp(nics.Get(i), nics.Get(0));
        qp->PostWrite(1000000, MakeCallback(&OnComplete)); // the callback is optional
    }
    Simulator::Run();
    std::cout << "PFC pauses sent: " << RoceFabricStats::Collect().pfcPauseTx << "\n";
    Simulator::Destroy();
    return 0;
}
