#include "ternrun/options.hpp"

#include <cctype>
#include <charconv>
#include <string_view>

#ifndef TERN_VERSION
#define TERN_VERSION "unknown"
#endif

namespace tern::launcher {
namespace {

enum class Key { Ranks, BindTo, MapBy, Export, TagOutput, Timeout, Oversubscribe, ReportBindings, Help, Version };

struct Spec {
  std::string_view name;  // without dashes
  Key key;
  bool takes_value;
};

// mpirun accepts its long options with one dash as well as two ("-np",
// "-bind-to"); so do we, which is why this is not getopt_long.
constexpr Spec kSpecs[] = {
    {"n", Key::Ranks, true},
    {"np", Key::Ranks, true},
    {"bind-to", Key::BindTo, true},
    {"map-by", Key::MapBy, true},
    {"x", Key::Export, true},
    {"tag-output", Key::TagOutput, false},
    {"timeout", Key::Timeout, true},
    {"oversubscribe", Key::Oversubscribe, false},
    {"report-bindings", Key::ReportBindings, false},
    {"h", Key::Help, false},
    {"help", Key::Help, false},
    {"V", Key::Version, false},
    {"version", Key::Version, false},
};

const Spec* find_spec(std::string_view name) {
  for (const Spec& spec : kSpecs) {
    if (spec.name == name) return &spec;
  }
  return nullptr;
}

bool parse_count(std::string_view text, unsigned min_value, unsigned max_value, unsigned& out) {
  unsigned value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return false;
  if (value < min_value || value > max_value) return false;
  out = value;
  return true;
}

bool valid_variable_name(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

std::string quoted(std::string_view text) { return "'" + std::string(text) + "'"; }

ParseResult fail(std::string message) { return {ParseOutcome::Error, std::move(message)}; }

// Applies one option with its value (empty when it takes none).
std::optional<ParseResult> apply(const Spec& spec, std::string_view shown, std::string_view value, Options& options) {
  auto bad_value = [&](const char* accepted) {
    return fail("invalid value " + quoted(value) + " for " + std::string(shown) + " (" + accepted + ")");
  };
  switch (spec.key) {
    case Key::Ranks:
      if (!parse_count(value, 1, kMaxRanks, options.ranks)) return bad_value("an integer from 1 to 4096");
      break;
    case Key::BindTo:
      if (value == "core") options.bind_to = BindTo::Core;
      else if (value == "numa") options.bind_to = BindTo::Numa;
      else if (value == "none") options.bind_to = BindTo::None;
      else return bad_value("core, numa or none");
      options.bind_to_set = true;
      break;
    case Key::MapBy:
      if (value == "core") options.map_by = MapBy::Core;
      else if (value == "numa") options.map_by = MapBy::Numa;
      else return bad_value("core or numa");
      break;
    case Key::Export: {
      auto equals = value.find('=');
      EnvExport item;
      item.name = std::string(value.substr(0, equals));
      if (equals != std::string_view::npos) item.value = std::string(value.substr(equals + 1));
      if (!valid_variable_name(item.name)) return bad_value("VAR or VAR=value, VAR a variable name");
      options.exports.push_back(std::move(item));
      break;
    }
    case Key::Timeout:
      if (!parse_count(value, 1, kMaxTimeoutSeconds, options.timeout_seconds)) {
        return bad_value("a whole number of seconds, at least 1");
      }
      break;
    case Key::TagOutput: options.tag_output = true; break;
    case Key::Oversubscribe: options.oversubscribe = true; break;
    case Key::ReportBindings: options.report_bindings = true; break;
    case Key::Help: return ParseResult{ParseOutcome::Help, {}};
    case Key::Version: return ParseResult{ParseOutcome::Version, {}};
  }
  return std::nullopt;
}

}  // namespace

ParseResult parse_options(int argc, const char* const* argv, Options& options) {
  int index = 1;
  while (index < argc) {
    std::string_view arg = argv[index];
    if (arg == "--") {
      ++index;
      break;
    }
    if (arg.size() < 2 || arg[0] != '-') break;  // the program
    std::string_view body = arg.substr(arg[1] == '-' ? 2 : 1);
    std::string_view name = body;
    std::optional<std::string_view> inline_value;
    if (auto equals = body.find('='); equals != std::string_view::npos) {
      name = body.substr(0, equals);
      inline_value = body.substr(equals + 1);
    }
    const Spec* spec = find_spec(name);
    // "-n4", as srun and many scripts write it.
    if (spec == nullptr && !inline_value && arg[1] != '-' && body.size() > 1 && body[0] == 'n' &&
        std::isdigit(static_cast<unsigned char>(body[1]))) {
      spec = find_spec("n");
      name = "n";
      inline_value = body.substr(1);
    }
    const std::string shown = std::string(arg.substr(0, arg.size() - body.size())) + std::string(name);
    if (spec == nullptr) return fail("unknown option " + quoted(shown));
    std::string_view value;
    if (spec->takes_value) {
      if (inline_value) {
        value = *inline_value;
      } else if (index + 1 < argc) {
        value = argv[++index];
      } else {
        return fail("option " + quoted(shown) + " needs a value");
      }
    } else if (inline_value) {
      return fail("option " + quoted(shown) + " takes no value");
    }
    if (auto result = apply(*spec, shown, value, options)) return *result;
    ++index;
  }
  if (index >= argc) return fail("no program to run");
  options.command.assign(argv + index, argv + argc);
  if (!options.bind_to_set) options.bind_to = options.map_by == MapBy::Numa ? BindTo::Numa : BindTo::Core;
  return {ParseOutcome::Run, {}};
}

void print_usage(std::FILE* out, const char* program) {
  std::fprintf(out,
               "Usage: %s [options] PROGRAM [ARGUMENTS...]\n"
               "Starts the ranks of a parallel job on this machine and serves them PMIx.\n"
               "(Also installed as mpirun, mpiexec and oshrun.)\n"
               "\n"
               "  -n, -np N                 number of ranks (default 1)\n"
               "      --map-by core|numa    place consecutive ranks on consecutive cores, or\n"
               "                            round robin over NUMA nodes (default core)\n"
               "      --bind-to core|numa|none\n"
               "                            bind each rank to its core, to its core's NUMA node,\n"
               "                            or not at all (default: as --map-by)\n"
               "      --oversubscribe       allow more ranks than cores; ranks are then not bound\n"
               "                            and wait by spinning briefly, then sleeping\n"
               "                            (TERN_WAIT_MODE=adaptive, TERN_SPIN_COUNT=100)\n"
               "  -x VAR[=VALUE]            set VAR in the ranks' environment (without VALUE:\n"
               "                            ternrun's own value); repeatable\n"
               "      --tag-output          prefix each line of output with \"[rank] \"\n"
               "      --timeout SECONDS     end the job after this long (exit code 124)\n"
               "      --report-bindings     print where each rank is bound\n"
               "  -h, --help                this text\n"
               "  -V, --version             the version\n"
               "\n"
               "Exit code: 0 when every rank exits 0; otherwise that of the first rank to fail\n"
               "(128 + N when killed by signal N); 124 after --timeout; 2 for a bad command line.\n",
               program);
}

const char* version_string() { return "ternrun (Tern) " TERN_VERSION; }

}  // namespace tern::launcher
