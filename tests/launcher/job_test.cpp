// The job's names and the environment its ranks start with.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "ternrun/job.hpp"

namespace tern::launcher {
namespace {

std::vector<std::string> environment(std::vector<const char*> base, const Options& options, const Job& job,
                                     std::vector<std::string>& warnings) {
  base.push_back(nullptr);
  return rank_environment(base.data(), options, job, warnings);
}

bool has(const std::vector<std::string>& env, const std::string& entry) {
  return std::find(env.begin(), env.end(), entry) != env.end();
}

bool has_name(const std::vector<std::string>& env, const std::string& name) {
  return std::any_of(env.begin(), env.end(), [&](const std::string& e) { return e.starts_with(name + "="); });
}

Job test_job(bool oversubscribed = false) {
  Job job;
  job.nspace = make_namespace(1234, "00112233445566778899aabbccddeeff");
  job.id = make_job_id(1234, 0xabcdef);
  job.size = 2;
  job.oversubscribed = oversubscribed;
  return job;
}

TEST(launcher_job, Names) {
  EXPECT_EQ(make_job_id(1234, 0xabcdef), "ternrun-1234-abcdef");
  EXPECT_EQ(make_job_id(7, 0x12abcdef), "ternrun-7-abcdef");
  EXPECT_EQ(make_namespace(7, "0f1e"), "ternrun-7-0f1e");
  // The namespace is the job's password: 128 random bits, different each time.
  const std::string secret = random_hex(16);
  EXPECT_EQ(secret.size(), 32u);
  EXPECT_EQ(secret.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_NE(secret, random_hex(16));
  EXPECT_EQ(sanitize_job_id("ternrun-1234-abcdef"), "ternrun-1234-abcdef");
  EXPECT_EQ(sanitize_job_id("slurm.job/42:x"), "slurm_job_42_x");
  EXPECT_EQ(rank_list(1), "0");
  EXPECT_EQ(rank_list(4), "0,1,2,3");
}

TEST(launcher_job, EnvironmentInheritsAndSetsJobId) {
  Options options;
  std::vector<std::string> warnings;
  auto env = environment({"HOME=/root", "PATH=/bin", "TERN_JOB_ID=stale"}, options, test_job(), warnings);
  EXPECT_TRUE(has(env, "HOME=/root"));
  EXPECT_TRUE(has(env, "PATH=/bin"));
  EXPECT_TRUE(has(env, "TERN_JOB_ID=ternrun-1234-abcdef"));
  EXPECT_FALSE(has(env, "TERN_JOB_ID=stale"));
  EXPECT_FALSE(has_name(env, "TERN_WAIT_MODE"));
  EXPECT_TRUE(warnings.empty());
}

TEST(launcher_job, OuterPmixVariablesAreDropped) {
  Options options;
  std::vector<std::string> warnings;
  auto env = environment({"PMIX_NAMESPACE=slurm.1", "PMIX_RANK=3", "PMIX_SERVER_URI41=x", "PMIX_MCA_gds=hash"},
                         options, test_job(), warnings);
  EXPECT_FALSE(has_name(env, "PMIX_NAMESPACE"));
  EXPECT_FALSE(has_name(env, "PMIX_RANK"));
  EXPECT_FALSE(has_name(env, "PMIX_SERVER_URI41"));
  EXPECT_TRUE(has(env, "PMIX_MCA_gds=hash"));  // a user's PMIx setting, not the outer server's
}

TEST(launcher_job, ExportsSetAndPassOn) {
  Options options;
  options.exports = {{"FOO", std::string("bar")}, {"HOME", std::nullopt}, {"PATH", std::string("/x")},
                     {"MISSING", std::nullopt}};
  std::vector<std::string> warnings;
  auto env = environment({"HOME=/root", "PATH=/bin"}, options, test_job(), warnings);
  EXPECT_TRUE(has(env, "FOO=bar"));
  EXPECT_TRUE(has(env, "HOME=/root"));
  EXPECT_TRUE(has(env, "PATH=/x"));
  EXPECT_FALSE(has(env, "PATH=/bin"));
  EXPECT_FALSE(has_name(env, "MISSING"));
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("MISSING"), std::string::npos);
}

TEST(launcher_job, OversubscribedRanksSpinBrieflyThenSleep) {
  Options options;
  std::vector<std::string> warnings;
  auto env = environment({"TERN_WAIT_MODE=spin"}, options, test_job(true), warnings);
  EXPECT_TRUE(has(env, "TERN_WAIT_MODE=adaptive"));
  EXPECT_TRUE(has(env, "TERN_SPIN_COUNT=100"));
  EXPECT_FALSE(has(env, "TERN_WAIT_MODE=spin"));
  // Not oversubscribed: the inherited setting stays.
  env = environment({"TERN_WAIT_MODE=spin"}, options, test_job(false), warnings);
  EXPECT_TRUE(has(env, "TERN_WAIT_MODE=spin"));
  EXPECT_FALSE(has(env, "TERN_SPIN_COUNT=100"));
  // An explicit -x is the user's decision and wins.
  options.exports = {{"TERN_WAIT_MODE", std::string("block")}};
  env = environment({}, options, test_job(true), warnings);
  EXPECT_TRUE(has(env, "TERN_WAIT_MODE=block"));
  EXPECT_FALSE(has(env, "TERN_WAIT_MODE=adaptive"));
  EXPECT_FALSE(has(env, "TERN_SPIN_COUNT=100"));
}

TEST(launcher_job, LargeMallocBlocksGetHugePagesWhereTheKernelOffersThem) {
  Options options;
  std::vector<std::string> warnings;
  Job job = test_job();
  job.transparent_hugepages = true;
  const std::string kept = ":glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=134217728";
  EXPECT_TRUE(has(environment({}, options, job, warnings), "GLIBC_TUNABLES=glibc.malloc.hugetlb=1" + kept));
  // The user's other tunables stay, ours go after them.
  EXPECT_TRUE(has(environment({"GLIBC_TUNABLES=glibc.malloc.tcache_count=0"}, options, job, warnings),
                  "GLIBC_TUNABLES=glibc.malloc.tcache_count=0:glibc.malloc.hugetlb=1" + kept));
  // A setting of the user's own wins, wherever it is in the list.
  EXPECT_TRUE(has(environment({"GLIBC_TUNABLES=glibc.malloc.hugetlb=0:glibc.malloc.tcache_count=0"}, options, job,
                              warnings),
                  "GLIBC_TUNABLES=glibc.malloc.hugetlb=0:glibc.malloc.tcache_count=0" + kept));
  EXPECT_TRUE(has(environment({"GLIBC_TUNABLES=glibc.malloc.trim_threshold=0"}, options, job, warnings),
                  "GLIBC_TUNABLES=glibc.malloc.trim_threshold=0:glibc.malloc.hugetlb=1:"
                  "glibc.malloc.mmap_threshold=33554432"));
  // Off: nothing added.
  EXPECT_FALSE(has_name(environment({"TERN_MALLOC_HUGEPAGES=off"}, options, job, warnings), "GLIBC_TUNABLES"));
  options.exports = {{"TERN_MALLOC_HUGEPAGES", std::string("no")}};
  EXPECT_FALSE(has_name(environment({}, options, job, warnings), "GLIBC_TUNABLES"));
  EXPECT_TRUE(warnings.empty());

  // A kernel without them: only an explicit on asks glibc anyway.
  options.exports.clear();
  job.transparent_hugepages = false;
  EXPECT_FALSE(has_name(environment({}, options, job, warnings), "GLIBC_TUNABLES"));
  EXPECT_TRUE(has(environment({"TERN_MALLOC_HUGEPAGES=on"}, options, job, warnings),
                  "GLIBC_TUNABLES=glibc.malloc.hugetlb=1" + kept));
}

TEST(launcher_job, AnUnknownHugePageChoiceIsReportedAndAddsNothing) {
  Options options;
  std::vector<std::string> warnings;
  Job job = test_job();
  job.transparent_hugepages = true;
  auto env = environment({"TERN_MALLOC_HUGEPAGES=maybe"}, options, job, warnings);
  EXPECT_FALSE(has_name(env, "GLIBC_TUNABLES"));
  EXPECT_TRUE(has(env, "TERN_MALLOC_HUGEPAGES=maybe")) << "the ranks see it and refuse it with the variable's name";
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("TERN_MALLOC_HUGEPAGES=maybe"), std::string::npos);
}

}  // namespace
}  // namespace tern::launcher
