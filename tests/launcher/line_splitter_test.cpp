// Output forwarding cuts at newlines only, whatever the reads return.
#include <gtest/gtest.h>

#include <string>

#include "ternrun/line_splitter.hpp"

namespace tern::launcher {
namespace {

TEST(launcher_lines, WholeLinesOnly) {
  LineSplitter splitter;
  std::string out;
  splitter.feed("one\ntw", out);
  EXPECT_EQ(out, "one\n");
  splitter.feed("o\nthr", out);
  EXPECT_EQ(out, "one\ntwo\n");
  splitter.feed("ee", out);
  EXPECT_EQ(out, "one\ntwo\n");
  splitter.finish(out);
  EXPECT_EQ(out, "one\ntwo\nthree\n");
}

TEST(launcher_lines, PrefixOnEveryLine) {
  LineSplitter splitter("[3] ");
  std::string out;
  splitter.feed("a\n\nb", out);
  splitter.feed("c\n", out);
  splitter.feed("tail", out);
  splitter.finish(out);
  EXPECT_EQ(out, "[3] a\n[3] \n[3] bc\n[3] tail\n");
}

TEST(launcher_lines, FinishWithoutPendingAddsNothing) {
  LineSplitter splitter("[0] ");
  std::string out;
  splitter.feed("done\n", out);
  splitter.finish(out);
  EXPECT_EQ(out, "[0] done\n");
}

TEST(launcher_lines, ByteAtATime) {
  LineSplitter splitter("> ");
  std::string out;
  for (char c : std::string("ab\ncd\n")) splitter.feed(std::string_view(&c, 1), out);
  EXPECT_EQ(out, "> ab\n> cd\n");
}

TEST(launcher_lines, OverlongLineGoesOutInPieces) {
  LineSplitter splitter("[1] ");
  std::string out;
  std::string huge(LineSplitter::kMaxPending + 10, 'x');
  splitter.feed(huge, out);
  EXPECT_EQ(out.size(), huge.size() + 4);  // out at once, prefixed once
  EXPECT_EQ(splitter.pending(), 0u);
  splitter.feed("yz\nnext\n", out);
  EXPECT_EQ(out, "[1] " + huge + "yz\n[1] next\n");
}

}  // namespace
}  // namespace tern::launcher
