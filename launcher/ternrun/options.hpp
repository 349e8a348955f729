// Command line of ternrun, in the style of mpirun.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <vector>

namespace tern::launcher {

// What a rank's CPU binding covers.
enum class BindTo { Core, Numa, None };
// How ranks are placed before binding: consecutive ranks on consecutive cores,
// or round robin over NUMA nodes.
enum class MapBy { Core, Numa };

// One -x: a variable for the ranks' environment. Without a value, ternrun's
// own value is passed on.
struct EnvExport {
  std::string name;
  std::optional<std::string> value;
};

struct Options {
  unsigned ranks = 1;
  MapBy map_by = MapBy::Core;
  BindTo bind_to = BindTo::Core;
  bool bind_to_set = false;      // given on the command line (else follows map_by)
  std::vector<EnvExport> exports;
  bool tag_output = false;
  unsigned timeout_seconds = 0;  // 0: no limit
  bool oversubscribe = false;
  bool report_bindings = false;
  std::vector<std::string> command;  // the program, then its arguments
};

// Largest -n accepted; far above what one machine runs, low enough that a typo
// (an extra digit) is an error instead of a fork storm.
inline constexpr unsigned kMaxRanks = 4096;
inline constexpr unsigned kMaxTimeoutSeconds = 100'000'000;

enum class ParseOutcome {
  Run,      // options filled in, command not empty
  Help,     // --help
  Version,  // --version
  Error,    // `error` says what, naming the option; nothing was printed
};

struct ParseResult {
  ParseOutcome outcome = ParseOutcome::Error;
  std::string error;
};

// Parses argv (argv[0] is the program name and is skipped). Options come
// before the program; the first argument that is not an option (or whatever
// follows "--") starts the command. Long options take one or two dashes and
// their value either as the next argument or after '='.
ParseResult parse_options(int argc, const char* const* argv, Options& options);

// The --help text.
void print_usage(std::FILE* out, const char* program);

// "ternrun (Tern) <version>".
const char* version_string();

}  // namespace tern::launcher
