// tern_info: what this Tern build is and would do on this machine: version,
// transports with their capabilities and thresholds, the topology, and every
// TERN_* variable with its current value, default and meaning.
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <string>
#include <unistd.h>

#include "tern/runtime/config.hpp"
#include "tern/runtime/topology.hpp"
#include "transport/iface_params.hpp"
#include "transport/tcp/tcp_address.hpp"
#include "transport/verbs/verbs_iface.hpp"

namespace {

using tern::Status;
namespace transport = tern::engine::transport;

std::string capabilities(uint32_t flags) {
  static constexpr std::pair<uint32_t, const char*> kNames[] = {
      {transport::kCapAmShort, "short"},         {transport::kCapAmBcopy, "bcopy"},
      {transport::kCapGetZcopy, "get-zcopy"},    {transport::kCapPutZcopy, "put-zcopy"},
      {transport::kCapWakeup, "wakeup"},         {transport::kCapLoopback, "loopback"},
  };
  std::string text;
  for (const auto& [flag, name] : kNames) {
    if ((flags & flag) == 0) continue;
    if (!text.empty()) text += ", ";
    text += name;
  }
  return text;
}

void print_transport(const char* name, std::unique_ptr<transport::Iface> iface, Status status) {
  if (!iface) {
    std::printf("  %-5s unavailable: %s\n", name, tern::to_string(status));
    return;
  }
  const transport::IfaceAttr& attr = iface->attr();
  std::printf("  %-5s %s\n", attr.name, capabilities(attr.flags).c_str());
  std::printf("        one-cell message up to %zu B, fragment %zu B, priority %d\n", attr.max_short, attr.max_bcopy,
              attr.priority);
  std::printf("        rendezvous from %zu B (from Worker::mem_alloc memory: %zu B)\n", attr.rndv_threshold,
              attr.rndv_threshold_mapped);
  const tern::runtime::Config& config = tern::runtime::global_config();
  const bool verbs = std::strcmp(attr.name, "verbs") == 0;
  if (transport::TagDevice* device = iface->tag_device()) {
    std::printf("        tag-matching device: %s, %u posted receives from %zu B (%s)\n", device->name(),
                device->capacity(), config.tm_threshold,
                verbs ? "the HCA matches peers' tagged sends; eager only, up to one fragment"
                      : "local senders match and write them");
  } else if (verbs) {
    std::printf("        tag-matching device: none (%s)\n",
                config.tm_offload != tern::runtime::Switch::On ? "the HCA's is used with TERN_TM_OFFLOAD=on"
                : config.tm_capacity == 0                    ? "TERN_TM_CAPACITY=0"
                                                             : "the device has no tag matching");
  } else if (std::strcmp(attr.name, "shm") == 0) {
    std::printf("        tag-matching device: none (%s)\n",
                config.tm_offload == tern::runtime::Switch::Off ? "TERN_TM_OFFLOAD=off"
                : config.tm_capacity == 0                     ? "TERN_TM_CAPACITY=0"
                                                              : "senders write receives with CMA, and TERN_CMA=off");
  } else {
    std::printf("        tag-matching device: none (the transport has none)\n");
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1) {
    std::printf("Usage: %s\nPrints Tern's version, transports, topology and configuration variables.\n", argv[0]);
    return std::string(argv[1]) == "-h" || std::string(argv[1]) == "--help" ? 0 : 2;
  }
  tern::runtime::Config config;
  std::string error;
  if (tern::runtime::load_config(config, error) != Status::Ok) {
    std::fprintf(stderr, "tern_info: %s\n", error.c_str());
    return 1;
  }
  std::printf("Tern %s\n\n", TERN_VERSION);

  std::printf("Transports:\n");
  transport::IfaceParams params;
  params.job_id = "info" + std::to_string(getpid());
  params.worker_uuid = 1;
  params.config = config;
  Status status = Status::Ok;
  auto shm = transport::create_shm_iface(params, status);
  print_transport("shm", std::move(shm), status);
  auto self = transport::create_self_iface(params, status);
  print_transport("self", std::move(self), status);
  auto tcp = transport::create_tcp_iface(params, status);
  if (tcp || status != Status::Unsupported) {
    print_transport("tcp", std::move(tcp), status);
  } else {
    std::printf("  tcp   off (TERN_TCP_IF=%s, or no interface is up)\n", config.tcp_interfaces.c_str());
  }
  std::vector<transport::tcp::InterfaceAddress> interfaces;
  if (transport::tcp::select_interfaces(config.tcp_interfaces, interfaces, error) && !interfaces.empty()) {
    std::printf("        interfaces (TERN_TCP_IF=%s):", config.tcp_interfaces.c_str());
    for (const auto& entry : interfaces) {
      std::printf(" %s %s/%u", entry.name.c_str(), entry.to_string().substr(0, entry.to_string().rfind(':')).c_str(),
                  unsigned{entry.prefix});
    }
    std::printf("\n");
  }
  std::string why;
  auto verbs = transport::verbs::VerbsIface::create(params, transport::verbs::default_provider(config),
                                                    transport::verbs::limits_for(config), status, &why);
  if (verbs) {
    const transport::verbs::DeviceInfo& device = verbs->device();
    std::printf("  verbs on %s port %u (%s, lid %u, MTU %u)%s; hardware tag matching: %u tags\n",
                device.name.c_str(), unsigned{device.port},
                device.link_layer == transport::verbs::LinkLayer::Ethernet ? "RoCE" : "InfiniBand",
                unsigned{device.lid}, device.active_mtu,
                config.verbs_emulation == tern::runtime::Switch::On ? " [emulated: TERN_VERBS_EMULATION]" : "",
                device.tm_max_tags);
    print_transport("verbs", std::move(verbs), status);
  } else if (status == Status::Unsupported) {
    std::printf("  verbs off (%s)\n", why.c_str());
  } else {
    std::printf("  verbs unavailable: %s (%s)\n", tern::to_string(status), why.c_str());
  }
  std::printf("  A peer is reached by the first of self > shm > verbs > tcp that reaches it: self only itself, shm\n"
              "  only processes on the same host (host name, boot id and namespaces), verbs and tcp any host.\n");

  std::printf("\nTopology:\n");
  tern::runtime::Topology topology;
  if (tern::runtime::Topology::load(topology) == Status::Ok) {
    std::printf("  %s; this process: %s\n", topology.summary().c_str(), topology.binding_of_self().c_str());
    const int node = tern::runtime::numa_node_for_placement();
    if (topology.numa_nodes() <= 1) {
      std::printf("  shared memory placement: not needed (one NUMA node)\n");
    } else if (node < 0) {
      std::printf("  shared memory placement: first touch (this process is not bound within one NUMA node)\n");
    } else {
      std::printf("  shared memory placement: NUMA node %d (where this process is bound)\n", node);
    }
  } else {
    std::printf("  unknown (hwloc could not load it)\n");
  }

  std::printf("\nConfiguration (environment variables):\n");
  for (const tern::runtime::ConfigVariable& var : tern::runtime::config_variables()) {
    const char* value = std::getenv(var.name);
    std::printf("  %-22s = %-10s (default %s; %s)\n", var.name, value != nullptr ? value : var.default_value,
                var.default_value, var.accepted);
    std::printf("  %-22s   %s\n", "", var.meaning);
  }
  return 0;
}
