// The TERN_* configuration: defaults, accepted spellings, and the messages a
// user sees for a bad value.
#include "tern/runtime/config.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <map>
#include <ostream>
#include <string>
#include <string_view>

namespace tern::runtime {
namespace {

// A fake environment for load_config.
class Env {
 public:
  Env& set(const std::string& name, const std::string& value) {
    values_[name] = value;
    return *this;
  }
  [[nodiscard]] EnvLookup lookup() const {
    return [this](const char* name) -> const char* {
      auto it = values_.find(name);
      return it == values_.end() ? nullptr : it->second.c_str();
    };
  }

 private:
  std::map<std::string, std::string> values_;
};

Config load_ok(const Env& env) {
  Config config;
  std::string error;
  EXPECT_EQ(load_config(config, error, env.lookup()), Status::Ok) << error;
  EXPECT_TRUE(error.empty()) << error;
  return config;
}

std::string load_error(const std::string& name, const std::string& value) {
  Env env;
  env.set(name, value);
  Config config;
  config.rndv_threshold = 12345;  // a failed load must leave the output alone
  std::string error;
  EXPECT_EQ(load_config(config, error, env.lookup()), Status::InvalidParam) << name << "=" << value;
  EXPECT_EQ(config.rndv_threshold, 12345u);
  return error;
}

const ConfigVariable* find_variable(std::string_view name) {
  for (const auto& var : config_variables()) {
    if (name == var.name) return &var;
  }
  return nullptr;
}

TEST(Config, DefaultsWhenNothingIsSet) {
  Config config = load_ok(Env());
  Config defaults;
  EXPECT_EQ(config.log_level, LogLevel::Warn);
  EXPECT_EQ(config.rndv_threshold, defaults.rndv_threshold);
  EXPECT_EQ(config.shm_cell_size, defaults.shm_cell_size);
  EXPECT_EQ(config.shm_fifo_cells, defaults.shm_fifo_cells);
  EXPECT_EQ(config.cma, Switch::Auto);
  EXPECT_EQ(config.cma_chunk, defaults.cma_chunk);
  EXPECT_EQ(config.wait_mode, WaitMode::Adaptive);
  EXPECT_EQ(config.spin_count, defaults.spin_count);
  EXPECT_TRUE(config.transports.empty());
  EXPECT_EQ(config.bootstrap, BootstrapMode::Auto);
  EXPECT_EQ(config.bootstrap_timeout, kDefaultBootstrapTimeout);
}

TEST(Config, EmptyValuesCountAsUnset) {
  Env env;
  for (const auto& var : config_variables()) env.set(var.name, "");
  Config config = load_ok(env);
  EXPECT_EQ(config.log_level, LogLevel::Warn);
  EXPECT_EQ(config.wait_mode, WaitMode::Adaptive);
  EXPECT_TRUE(config.transports.empty());
}

TEST(Config, DefaultLookupReadsTheEnvironment) {
  ASSERT_EQ(setenv("TERN_WAIT_MODE", "spin", 1), 0);
  Config config;
  std::string error;
  EXPECT_EQ(load_config(config, error), Status::Ok) << error;
  EXPECT_EQ(config.wait_mode, WaitMode::Spin);
  unsetenv("TERN_WAIT_MODE");
}

TEST(Config, TableDescribesEveryVariable) {
  auto vars = config_variables();
  ASSERT_GE(vars.size(), 9u);
  for (const auto& var : vars) {
    EXPECT_EQ(std::string_view(var.name).substr(0, 5), "TERN_") << var.name;
    EXPECT_NE(std::string_view(var.default_value), "") << var.name;
    EXPECT_NE(std::string_view(var.accepted), "") << var.name;
    EXPECT_NE(std::string_view(var.meaning), "") << var.name;
  }
  for (const char* name : {"TERN_LOG_LEVEL", "TERN_RNDV_THRESH", "TERN_SHM_CELL_SIZE", "TERN_SHM_FIFO_CELLS",
                           "TERN_CMA", "TERN_CMA_CHUNK", "TERN_WAIT_MODE", "TERN_SPIN_COUNT", "TERN_TLS",
                           "TERN_BOOTSTRAP", "TERN_BOOTSTRAP_TIMEOUT"}) {
    EXPECT_NE(find_variable(name), nullptr) << name;
  }
}

TEST(Config, TableDefaultsAreThemselvesAccepted) {
  // What tern_info prints as the default must load without complaint.
  Env env;
  for (const auto& var : config_variables()) env.set(var.name, var.default_value);
  Config config = load_ok(env);
  EXPECT_EQ(config.log_level, LogLevel::Warn);
  EXPECT_EQ(config.cma, Switch::Auto);
  EXPECT_EQ(config.wait_mode, WaitMode::Adaptive);
  EXPECT_EQ(config.shm_cell_size, 20480u);
  EXPECT_EQ(config.shm_fifo_cells, 0u);  // auto
  EXPECT_EQ(config.cma_chunk, 4u << 20);
  EXPECT_EQ(config.spin_count, 20000u);
  EXPECT_EQ(config.bootstrap, BootstrapMode::Auto);
  EXPECT_EQ(config.bootstrap_timeout, 60u);
}

TEST(Config, LogLevels) {
  const std::pair<const char*, LogLevel> cases[] = {{"error", LogLevel::Error},
                                                    {"warn", LogLevel::Warn},
                                                    {"info", LogLevel::Info},
                                                    {"debug", LogLevel::Debug},
                                                    {"trace", LogLevel::Trace}};
  for (const auto& [text, level] : cases) {
    EXPECT_EQ(load_ok(Env().set("TERN_LOG_LEVEL", text)).log_level, level) << text;
  }
}

TEST(Config, WaitModes) {
  EXPECT_EQ(load_ok(Env().set("TERN_WAIT_MODE", "spin")).wait_mode, WaitMode::Spin);
  EXPECT_EQ(load_ok(Env().set("TERN_WAIT_MODE", "block")).wait_mode, WaitMode::Block);
  EXPECT_EQ(load_ok(Env().set("TERN_WAIT_MODE", "adaptive")).wait_mode, WaitMode::Adaptive);
}

TEST(Config, ProgressModes) {
  EXPECT_EQ(load_ok(Env()).progress, ProgressMode::Caller);
  EXPECT_EQ(load_ok(Env().set("TERN_PROGRESS", "caller")).progress, ProgressMode::Caller);
  EXPECT_EQ(load_ok(Env().set("TERN_PROGRESS", "thread")).progress, ProgressMode::Thread);
  EXPECT_EQ(load_ok(Env().set("TERN_PROGRESS", "thread-blocking")).progress, ProgressMode::ThreadBlocking);
  for (const char* bad : {"threads", "blocking", "1", "Thread"}) {
    EXPECT_NE(load_error("TERN_PROGRESS", bad).find("caller|thread|thread-blocking"), std::string::npos) << bad;
  }
  for (ProgressMode mode : {ProgressMode::Caller, ProgressMode::Thread, ProgressMode::ThreadBlocking}) {
    ProgressMode parsed = ProgressMode::Caller;
    EXPECT_TRUE(parse_progress_mode(to_string(mode), parsed));
    EXPECT_EQ(parsed, mode);
  }
}

TEST(Config, BootstrapModes) {
  EXPECT_EQ(load_ok(Env().set("TERN_BOOTSTRAP", "auto")).bootstrap, BootstrapMode::Auto);
  EXPECT_EQ(load_ok(Env().set("TERN_BOOTSTRAP", "pmix")).bootstrap, BootstrapMode::Pmix);
  EXPECT_EQ(load_ok(Env().set("TERN_BOOTSTRAP", "singleton")).bootstrap, BootstrapMode::Singleton);
  EXPECT_EQ(load_ok(Env().set("TERN_BOOTSTRAP_TIMEOUT", "0")).bootstrap_timeout, 0u);
  EXPECT_EQ(load_ok(Env().set("TERN_BOOTSTRAP_TIMEOUT", "5")).bootstrap_timeout, 5u);
  EXPECT_EQ(load_ok(Env().set("TERN_BOOTSTRAP_TIMEOUT", "86400")).bootstrap_timeout, 86400u);
}

TEST(Config, Switches) {
  for (const char* on : {"on", "yes", "1"}) EXPECT_EQ(load_ok(Env().set("TERN_CMA", on)).cma, Switch::On) << on;
  for (const char* off : {"off", "no", "0"}) EXPECT_EQ(load_ok(Env().set("TERN_CMA", off)).cma, Switch::Off) << off;
  EXPECT_EQ(load_ok(Env().set("TERN_CMA", "auto")).cma, Switch::Auto);
}

TEST(Config, Sizes) {
  EXPECT_EQ(load_ok(Env().set("TERN_RNDV_THRESH", "16384")).rndv_threshold, 16384u);
  EXPECT_EQ(load_ok(Env().set("TERN_RNDV_THRESH", "32K")).rndv_threshold, 32u << 10);
  EXPECT_EQ(load_ok(Env().set("TERN_RNDV_THRESH", "32k")).rndv_threshold, 32u << 10);
  EXPECT_EQ(load_ok(Env().set("TERN_RNDV_THRESH", "auto")).rndv_threshold, 0u);
  EXPECT_EQ(load_ok(Env().set("TERN_CMA_CHUNK", "2M")).cma_chunk, 2u << 20);
  EXPECT_EQ(load_ok(Env().set("TERN_CMA_CHUNK", "1G")).cma_chunk, std::size_t{1} << 30);
  EXPECT_EQ(load_ok(Env().set("TERN_CMA_CHUNK", "4K")).cma_chunk, 4096u);
  EXPECT_EQ(load_ok(Env().set("TERN_SHM_CELL_SIZE", "256")).shm_cell_size, 256u);
  EXPECT_EQ(load_ok(Env().set("TERN_SHM_CELL_SIZE", "64K")).shm_cell_size, 65536u);
  EXPECT_EQ(load_ok(Env().set("TERN_SHM_CELL_SIZE", "1KB")).shm_cell_size, 1024u);
  // Any whole number of cache lines, not only powers of two.
  EXPECT_EQ(load_ok(Env().set("TERN_SHM_CELL_SIZE", "20K")).shm_cell_size, 20480u);
  EXPECT_EQ(load_ok(Env().set("TERN_SHM_CELL_SIZE", "16448")).shm_cell_size, 16448u);
  EXPECT_EQ(load_ok(Env().set("TERN_SHM_FIFO_CELLS", "8")).shm_fifo_cells, 8u);
  EXPECT_EQ(load_ok(Env().set("TERN_SHM_FIFO_CELLS", "65536")).shm_fifo_cells, 65536u);
  EXPECT_EQ(load_ok(Env().set("TERN_SHM_FIFO_CELLS", "auto")).shm_fifo_cells, 0u);
  EXPECT_EQ(load_ok(Env().set("TERN_SPIN_COUNT", "0")).spin_count, 0u);
  EXPECT_EQ(load_ok(Env().set("TERN_SPIN_COUNT", "100000")).spin_count, 100000u);
}

TEST(Config, TransportLists) {
  EXPECT_EQ(load_ok(Env().set("TERN_TLS", "shm")).transports, "shm");
  EXPECT_EQ(load_ok(Env().set("TERN_TLS", "self,shm")).transports, "self,shm");
  EXPECT_EQ(load_ok(Env().set("TERN_TLS", "all")).transports, "");
  EXPECT_EQ(load_ok(Env().set("TERN_TLS", "self,all")).transports, "");
  EXPECT_EQ(load_ok(Env().set("TERN_TLS", "self,tcp")).transports, "self,tcp");
  EXPECT_EQ(load_ok(Env().set("TERN_TLS", "verbs,shm")).transports, "verbs,shm");
  EXPECT_EQ(load_ok(Env().set("TERN_VERBS_EMULATION", "on")).verbs_emulation, Switch::On);
}

TEST(Config, TcpSettings) {
  const Config defaults = load_ok(Env());
  EXPECT_EQ(defaults.tcp_interfaces, "auto");
  EXPECT_EQ(defaults.tcp_nodelay, Switch::On);
  EXPECT_EQ(defaults.tcp_sndbuf, 0u);
  Env env;
  env.set("TERN_TCP_IF", "eth0,10.200.0.0/24").set("TERN_TCP_RNDV_THRESH", "256K").set("TERN_TCP_FRAG_SIZE", "128K");
  env.set("TERN_TCP_SNDBUF", "4M").set("TERN_TCP_RCVBUF", "8M").set("TERN_TCP_NODELAY", "off");
  const Config config = load_ok(env);
  EXPECT_EQ(config.tcp_interfaces, "eth0,10.200.0.0/24");
  EXPECT_EQ(config.tcp_rndv_threshold, 256u << 10);
  EXPECT_EQ(config.tcp_fragment_size, 128u << 10);
  EXPECT_EQ(config.tcp_sndbuf, 4u << 20);
  EXPECT_EQ(config.tcp_rcvbuf, 8u << 20);
  EXPECT_EQ(config.tcp_nodelay, Switch::Off);
}

TEST(Config, SeveralVariablesAtOnce) {
  Env env;
  env.set("TERN_LOG_LEVEL", "debug").set("TERN_CMA", "off").set("TERN_SHM_CELL_SIZE", "4K").set("TERN_TLS", "shm");
  Config config = load_ok(env);
  EXPECT_EQ(config.log_level, LogLevel::Debug);
  EXPECT_EQ(config.cma, Switch::Off);
  EXPECT_EQ(config.shm_cell_size, 4096u);
  EXPECT_EQ(config.transports, "shm");
}

// Every bad value is refused, and the message names the variable, quotes the
// value and lists what is accepted (the table's own text).
struct BadValue {
  const char* name;
  const char* value;
};

// Names the case in test listings instead of dumping its bytes.
void PrintTo(const BadValue& bad, std::ostream* out) { *out << bad.name << "='" << bad.value << "'"; }

class ConfigBadValue : public ::testing::TestWithParam<BadValue> {};

TEST_P(ConfigBadValue, RejectedWithAClearMessage) {
  const BadValue& bad = GetParam();
  std::string error = load_error(bad.name, bad.value);
  const ConfigVariable* var = find_variable(bad.name);
  ASSERT_NE(var, nullptr);
  EXPECT_NE(error.find(bad.name), std::string::npos) << error;
  EXPECT_NE(error.find(std::string("'") + bad.value + "'"), std::string::npos) << error;
  EXPECT_NE(error.find(var->accepted), std::string::npos) << error;
}

INSTANTIATE_TEST_SUITE_P(
    Values, ConfigBadValue,
    ::testing::Values(BadValue{"TERN_LOG_LEVEL", "verbose"}, BadValue{"TERN_LOG_LEVEL", "WARN"},
                      BadValue{"TERN_LOG_LEVEL", "warn "}, BadValue{"TERN_LOG_LEVEL", "2"},
                      BadValue{"TERN_RNDV_THRESH", "big"}, BadValue{"TERN_RNDV_THRESH", "-1"},
                      BadValue{"TERN_RNDV_THRESH", "16T"}, BadValue{"TERN_RNDV_THRESH", "1.5K"},
                      BadValue{"TERN_SHM_CELL_SIZE", "1000"}, BadValue{"TERN_SHM_CELL_SIZE", "16400"},
                      BadValue{"TERN_SHM_CELL_SIZE", "128"}, BadValue{"TERN_SHM_CELL_SIZE", "128K"},
                      BadValue{"TERN_SHM_CELL_SIZE", "0"},
                      BadValue{"TERN_SHM_FIFO_CELLS", "4"}, BadValue{"TERN_SHM_FIFO_CELLS", "100"},
                      BadValue{"TERN_SHM_FIFO_CELLS", "131072"}, BadValue{"TERN_SHM_FIFO_CELLS", "many"},
                      BadValue{"TERN_CMA", "maybe"}, BadValue{"TERN_CMA", "ON"}, BadValue{"TERN_CMA", "2"},
                      BadValue{"TERN_CMA_CHUNK", "4095"}, BadValue{"TERN_CMA_CHUNK", "0"},
                      BadValue{"TERN_CMA_CHUNK", "x"}, BadValue{"TERN_WAIT_MODE", "poll"},
                      BadValue{"TERN_WAIT_MODE", "Spin"}, BadValue{"TERN_SPIN_COUNT", "-5"},
                      BadValue{"TERN_SPIN_COUNT", "lots"}, BadValue{"TERN_SPIN_COUNT", "99999999999999999999"},
                      BadValue{"TERN_TLS", "ucx"}, BadValue{"TERN_TCP_FRAG_SIZE", "1K"}, BadValue{"TERN_TCP_FRAG_SIZE", "32M"},
                      BadValue{"TERN_TCP_RNDV_THRESH", "big"}, BadValue{"TERN_TCP_NODELAY", "sometimes"},
                      BadValue{"TERN_TCP_SNDBUF", "-1"}, BadValue{"TERN_TLS", "shm,"}, BadValue{"TERN_TLS", ",shm"},
                      BadValue{"TERN_TLS", "self,,shm"}, BadValue{"TERN_TLS", "self shm"},
                      BadValue{"TERN_TLS", ","}, BadValue{"TERN_BOOTSTRAP", "slurm"},
                      BadValue{"TERN_BOOTSTRAP", "PMIX"}, BadValue{"TERN_BOOTSTRAP", "pmix,singleton"},
                      BadValue{"TERN_BOOTSTRAP", "single"}, BadValue{"TERN_BOOTSTRAP_TIMEOUT", "-1"},
                      BadValue{"TERN_BOOTSTRAP_TIMEOUT", "1m"}, BadValue{"TERN_BOOTSTRAP_TIMEOUT", "86401"},
                      BadValue{"TERN_BOOTSTRAP_TIMEOUT", "99999999999"}, BadValue{"TERN_BOOTSTRAP_TIMEOUT", "1.5"}),
    [](const ::testing::TestParamInfo<BadValue>& info) {
      std::string name = std::string(info.param.name).substr(5) + "_" + std::to_string(info.index);
      return name;
    });

TEST(Config, FirstBadValueStopsTheLoad) {
  Env env;
  env.set("TERN_LOG_LEVEL", "debug").set("TERN_CMA", "sometimes");
  Config config;
  std::string error;
  EXPECT_EQ(load_config(config, error, env.lookup()), Status::InvalidParam);
  EXPECT_EQ(config.log_level, LogLevel::Warn);  // nothing applied
  EXPECT_NE(error.find("TERN_CMA"), std::string::npos) << error;
}

// --- parse_size

std::size_t size_of(const char* text) {
  std::size_t value = 77;
  EXPECT_TRUE(parse_size(text, value)) << text;
  return value;
}

void expect_refused(const char* text) {
  std::size_t value = 77;
  EXPECT_FALSE(parse_size(text, value)) << (text ? text : "(null)");
  EXPECT_EQ(value, 77u) << "a refused size must leave the output alone: " << (text ? text : "(null)");
}

TEST(ParseSize, PlainNumbers) {
  EXPECT_EQ(size_of("0"), 0u);
  EXPECT_EQ(size_of("1"), 1u);
  EXPECT_EQ(size_of("4096"), 4096u);
  EXPECT_EQ(size_of("007"), 7u);
  EXPECT_EQ(size_of("18446744073709551615"), ~std::size_t{0});
}

TEST(ParseSize, BinarySuffixes) {
  EXPECT_EQ(size_of("1K"), 1024u);
  EXPECT_EQ(size_of("1k"), 1024u);
  EXPECT_EQ(size_of("64K"), 65536u);
  EXPECT_EQ(size_of("8M"), 8u << 20);
  EXPECT_EQ(size_of("8m"), 8u << 20);
  EXPECT_EQ(size_of("1G"), std::size_t{1} << 30);
  EXPECT_EQ(size_of("3g"), std::size_t{3} << 30);
  EXPECT_EQ(size_of("2KB"), 2048u);
  EXPECT_EQ(size_of("2kb"), 2048u);
  EXPECT_EQ(size_of("0K"), 0u);
  EXPECT_EQ(size_of("512B"), 512u);
}

TEST(ParseSize, LargestValuesBeforeOverflow) {
  EXPECT_EQ(size_of("17179869183G"), std::size_t{17179869183} << 30);
  EXPECT_EQ(size_of("17592186044415M"), std::size_t{17592186044415} << 20);
  EXPECT_EQ(size_of("18014398509481983K"), std::size_t{18014398509481983} << 10);
}

TEST(ParseSize, Overflow) {
  expect_refused("18446744073709551616");  // 2^64
  expect_refused("99999999999999999999999");
  expect_refused("17179869184G");  // 2^34 G = 2^64
  expect_refused("17592186044416M");
  expect_refused("18014398509481984K");
  expect_refused("18446744073709551615K");
}

TEST(ParseSize, Junk) {
  expect_refused(nullptr);
  expect_refused("");
  expect_refused("K");
  expect_refused("abc");
  expect_refused("12abc");
  expect_refused("12KK");
  expect_refused("12KBB");
  expect_refused("12T");
  expect_refused("1.5M");
  expect_refused("0x10");
  expect_refused("1e3");
  expect_refused("12 ");
  expect_refused(" 12");
  expect_refused("12 K");
  expect_refused("+12");
}

TEST(ParseSize, Negative) {
  expect_refused("-1");
  expect_refused("-0");
  expect_refused("-1K");
  expect_refused(" -1");  // strtoull would wrap this to 2^64 - 1
  expect_refused("\t-5");
}

TEST(Config, ProgressCpusTakeAListOfCpusAndRanges) {
  EXPECT_TRUE(load_ok(Env{}).progress_cpus.empty());
  EXPECT_EQ(load_ok(Env{}.set("TERN_PROGRESS_CPUS", "3")).progress_cpus, (std::vector<unsigned>{3}));
  EXPECT_EQ(load_ok(Env{}.set("TERN_PROGRESS_CPUS", "6,2-3,3")).progress_cpus, (std::vector<unsigned>{2, 3, 6}));
  EXPECT_TRUE(load_ok(Env{}.set("TERN_PROGRESS_CPUS", "none")).progress_cpus.empty());
  for (const char* bad : {"x", "3-1", "1,,2", "2-", "-2", "1024", "1 2"}) {
    EXPECT_NE(load_error("TERN_PROGRESS_CPUS", bad).find("TERN_PROGRESS_CPUS"), std::string::npos) << bad;
  }
  EXPECT_EQ(format_cpu_list({0, 1, 2, 5, 7, 8}), "0-2,5,7-8");
}

TEST(Config, CriticalTagsTakeAListOfTagsAndRanges) {
  EXPECT_TRUE(load_ok(Env{}).critical_tags.empty());
  const TagSet tags = load_ok(Env{}.set("TERN_CRITICAL_TAGS", "9,5,7-8,20-30,25")).critical_tags;
  EXPECT_EQ(tags.to_string(), "5,7-9,20-30");  // sorted, adjacent and overlapping ranges merged
  for (int tag : {5, 7, 8, 9, 20, 25, 30}) EXPECT_TRUE(tags.contains(tag)) << tag;
  for (int tag : {0, 4, 6, 10, 19, 31, 8388607}) EXPECT_FALSE(tags.contains(tag)) << tag;
  EXPECT_TRUE(load_ok(Env{}.set("TERN_CRITICAL_TAGS", "none")).critical_tags.empty());
  EXPECT_TRUE(load_ok(Env{}.set("TERN_CRITICAL_TAGS", "0-8388607")).critical_tags.contains(8388607));
  for (const char* bad : {"x", "9-7", "1,,2", "5-", "-5", "8388608", "1 2", "5;6"}) {
    EXPECT_NE(load_error("TERN_CRITICAL_TAGS", bad).find("TERN_CRITICAL_TAGS"), std::string::npos) << bad;
  }
  EXPECT_EQ(load_ok(Env{}.set("TERN_AGENT_MEMORY", "1M")).agent_memory, std::size_t{1} << 20);
  EXPECT_NE(load_error("TERN_AGENT_MEMORY", "lots").find("TERN_AGENT_MEMORY"), std::string::npos);
}

TEST(NumberRanges, UnsignedBoundsAndFormat) {
  NumberRanges ranges;
  EXPECT_TRUE(parse_number_ranges("0", 0, ranges));
  EXPECT_EQ(format_number_ranges(ranges), "0");
  EXPECT_FALSE(parse_number_ranges("1", 0, ranges));
  EXPECT_EQ(format_number_ranges(ranges), "0");  // unchanged by a refusal
  EXPECT_TRUE(parse_number_ranges("4294967295", 4294967295u, ranges));
  EXPECT_FALSE(parse_number_ranges("4294967296", 4294967295u, ranges));
  EXPECT_FALSE(parse_number_ranges("", 10, ranges));
  EXPECT_TRUE(parse_number_ranges("3-4,1-2", 10, ranges));
  EXPECT_EQ(format_number_ranges(ranges), "1-4");
}

}  // namespace
}  // namespace tern::runtime
