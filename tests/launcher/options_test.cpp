// ternrun's command line: the mpirun spellings it accepts and the one-line
// errors for what it does not.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ternrun/options.hpp"

namespace tern::launcher {
namespace {

struct Parsed {
  ParseResult result;
  Options options;
};

Parsed parse(std::vector<std::string> args) {
  args.insert(args.begin(), "ternrun");
  std::vector<const char*> argv;
  for (const std::string& arg : args) argv.push_back(arg.c_str());
  Parsed parsed;
  parsed.result = parse_options(static_cast<int>(argv.size()), argv.data(), parsed.options);
  return parsed;
}

TEST(launcher_options, DefaultsAndProgram) {
  Parsed p = parse({"./a.out", "-n", "5"});
  ASSERT_EQ(p.result.outcome, ParseOutcome::Run) << p.result.error;
  EXPECT_EQ(p.options.ranks, 1u);
  EXPECT_EQ(p.options.map_by, MapBy::Core);
  EXPECT_EQ(p.options.bind_to, BindTo::Core);
  EXPECT_FALSE(p.options.tag_output);
  EXPECT_FALSE(p.options.oversubscribe);
  EXPECT_EQ(p.options.timeout_seconds, 0u);
  // Everything from the program on belongs to the program.
  EXPECT_EQ(p.options.command, (std::vector<std::string>{"./a.out", "-n", "5"}));
}

TEST(launcher_options, RankCountSpellings) {
  for (std::vector<std::string> args : {std::vector<std::string>{"-n", "4", "prog"},
                                        {"-np", "4", "prog"},
                                        {"--np", "4", "prog"},
                                        {"--n=4", "prog"},
                                        {"-np=4", "prog"},
                                        {"-n4", "prog"}}) {
    Parsed p = parse(args);
    ASSERT_EQ(p.result.outcome, ParseOutcome::Run) << args[0] << ": " << p.result.error;
    EXPECT_EQ(p.options.ranks, 4u) << args[0];
    EXPECT_EQ(p.options.command, std::vector<std::string>{"prog"});
  }
}

TEST(launcher_options, AllOptions) {
  Parsed p = parse({"-np", "3", "--map-by", "numa", "--bind-to=none", "-x", "A=1", "-x", "B", "--tag-output",
                    "--timeout", "30", "--oversubscribe", "-report-bindings", "prog", "arg"});
  ASSERT_EQ(p.result.outcome, ParseOutcome::Run) << p.result.error;
  EXPECT_EQ(p.options.ranks, 3u);
  EXPECT_EQ(p.options.map_by, MapBy::Numa);
  EXPECT_EQ(p.options.bind_to, BindTo::None);
  ASSERT_EQ(p.options.exports.size(), 2u);
  EXPECT_EQ(p.options.exports[0].name, "A");
  EXPECT_EQ(p.options.exports[0].value, "1");
  EXPECT_EQ(p.options.exports[1].name, "B");
  EXPECT_FALSE(p.options.exports[1].value.has_value());
  EXPECT_TRUE(p.options.tag_output);
  EXPECT_EQ(p.options.timeout_seconds, 30u);
  EXPECT_TRUE(p.options.oversubscribe);
  EXPECT_TRUE(p.options.report_bindings);
  EXPECT_EQ(p.options.command, (std::vector<std::string>{"prog", "arg"}));
}

TEST(launcher_options, BindingFollowsMappingUnlessGiven) {
  EXPECT_EQ(parse({"--map-by", "numa", "prog"}).options.bind_to, BindTo::Numa);
  EXPECT_EQ(parse({"--map-by", "core", "prog"}).options.bind_to, BindTo::Core);
  EXPECT_EQ(parse({"--map-by", "numa", "--bind-to", "core", "prog"}).options.bind_to, BindTo::Core);
}

TEST(launcher_options, ExportKeepsEqualsInValue) {
  Parsed p = parse({"-x", "OPTS=a=b", "prog"});
  ASSERT_EQ(p.result.outcome, ParseOutcome::Run);
  EXPECT_EQ(p.options.exports[0].name, "OPTS");
  EXPECT_EQ(p.options.exports[0].value, "a=b");
  Parsed empty = parse({"-x", "EMPTY=", "prog"});
  ASSERT_EQ(empty.result.outcome, ParseOutcome::Run);
  EXPECT_EQ(empty.options.exports[0].value, "");
}

TEST(launcher_options, DoubleDashEndsOptions) {
  Parsed p = parse({"-n", "2", "--", "-weird-program", "x"});
  ASSERT_EQ(p.result.outcome, ParseOutcome::Run);
  EXPECT_EQ(p.options.command, (std::vector<std::string>{"-weird-program", "x"}));
}

TEST(launcher_options, HelpAndVersion) {
  EXPECT_EQ(parse({"--help"}).result.outcome, ParseOutcome::Help);
  EXPECT_EQ(parse({"-h"}).result.outcome, ParseOutcome::Help);
  EXPECT_EQ(parse({"--version"}).result.outcome, ParseOutcome::Version);
  EXPECT_EQ(parse({"-V"}).result.outcome, ParseOutcome::Version);
  EXPECT_NE(std::string(version_string()).find("ternrun"), std::string::npos);
}

// Each bad command line is an error whose text names the culprit.
TEST(launcher_options, ErrorsNameTheOption) {
  struct Case {
    std::vector<std::string> args;
    std::string named;
  };
  const Case cases[] = {
      {{"--bogus", "prog"}, "'--bogus'"},
      {{"-q", "prog"}, "'-q'"},
      {{"-n", "0", "prog"}, "-n"},
      {{"-n", "many", "prog"}, "'many'"},
      {{"-np", "4097", "prog"}, "-np"},
      {{"-n", "-3", "prog"}, "-n"},
      {{"-n"}, "'-n' needs a value"},
      {{"--bind-to", "socket", "prog"}, "--bind-to"},
      {{"--map-by", "node", "prog"}, "--map-by"},
      {{"-x", "1BAD=2", "prog"}, "-x"},
      {{"-x", "=2", "prog"}, "-x"},
      {{"--timeout", "0", "prog"}, "--timeout"},
      {{"--timeout", "5s", "prog"}, "--timeout"},
      {{"--tag-output=yes", "prog"}, "'--tag-output' takes no value"},
      {{"-n", "2"}, "no program"},
      {{}, "no program"},
  };
  for (const Case& c : cases) {
    Parsed p = parse(c.args);
    EXPECT_EQ(p.result.outcome, ParseOutcome::Error) << c.named;
    EXPECT_NE(p.result.error.find(c.named), std::string::npos) << "'" << p.result.error << "' lacks " << c.named;
    EXPECT_EQ(p.result.error.find('\n'), std::string::npos) << p.result.error;
  }
}

}  // namespace
}  // namespace tern::launcher
