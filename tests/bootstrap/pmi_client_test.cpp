// The PMI client against a scripted server on a socketpair: both wire
// versions, values split over entries, every kind of bad answer (each must
// fail naming the command and what came back), PMI_process_mapping, and the
// choice between PMIx, PMI, singleton and "a launcher Tern cannot speak to".
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "pmi_mapping.hpp"
#include "tern/runtime/bootstrap.hpp"

namespace tern::runtime {
namespace {

// One exchange of the script: read a command in `v2` framing or not, then
// write `reply` as it is (framing included), or close the socket when
// `hang_up`, or say nothing when `silent`.
struct Step {
  bool v2 = false;
  std::string reply;
  bool hang_up = false;
  bool silent = false;
};

std::string frame(const std::string& body) {
  std::string length = std::to_string(body.size());
  length.resize(6, ' ');
  return length + body;
}

Step v1(std::string reply) { return Step{false, std::move(reply) + "\n"}; }
Step v2(const std::string& reply) { return Step{true, frame(reply)}; }
Step v2_raw(std::string bytes) { return Step{true, std::move(bytes)}; }

// Serves a script on one end of a socketpair, recording every command.
class ScriptedServer {
 public:
  explicit ScriptedServer(std::vector<Step> script) : script_(std::move(script)) {
    int fds[2];
    EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0);
    server_fd_ = fds[0];
    client_fd_ = fds[1];
    thread_ = std::thread([this] { serve(); });
  }
  ~ScriptedServer() {
    ::shutdown(server_fd_, SHUT_RDWR);
    thread_.join();
    ::close(server_fd_);
  }
  int client_fd() const { return client_fd_; }
  const std::vector<std::string>& commands() const { return commands_; }

 private:
  bool read_exact(std::string& out, std::size_t count) {
    out.clear();
    while (out.size() < count) {
      char c;
      if (::read(server_fd_, &c, 1) != 1) return false;
      out.push_back(c);
    }
    return true;
  }
  void serve() {
    for (const Step& step : script_) {
      std::string command;
      if (step.v2) {
        std::string length;
        if (!read_exact(length, 6) || !read_exact(command, std::stoul(length))) return;
      } else {
        char c;
        while (::read(server_fd_, &c, 1) == 1 && c != '\n') command.push_back(c);
      }
      commands_.push_back(command);
      if (step.hang_up) {
        ::shutdown(server_fd_, SHUT_RDWR);
        return;
      }
      if (step.silent) continue;
      (void)::send(server_fd_, step.reply.data(), step.reply.size(), MSG_NOSIGNAL);
    }
    // Anything after the script (finalize at teardown) is read and ignored.
    char sink[256];
    while (::read(server_fd_, sink, sizeof(sink)) > 0) {
    }
  }

  std::vector<Step> script_;
  std::vector<std::string> commands_;
  int server_fd_ = -1;
  int client_fd_ = -1;
  std::thread thread_;
};

const char* const kLauncherVariables[] = {
    "PMI_FD", "PMI_RANK", "PMI_SIZE", "PMI_PORT", "PMI_ID", "PMI_JOBID", "PMIX_NAMESPACE", "PMIX_RANK", "PMIX_SERVER_URI41",
    "SLURM_STEP_ID", "SLURM_NTASKS", "SLURM_STEP_NUM_TASKS", "OMPI_COMM_WORLD_SIZE", "MPI_LOCALNRANKS",
    "TERN_BOOTSTRAP", "TERN_BOOTSTRAP_TIMEOUT", "TERN_JOB_ID"};

class PmiClient : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : kLauncherVariables) {
      if (const char* value = std::getenv(name)) saved_.emplace_back(name, value);
      unsetenv(name);
    }
  }
  void TearDown() override {
    for (const char* name : kLauncherVariables) unsetenv(name);
    for (const auto& [name, value] : saved_) setenv(name.c_str(), value.c_str(), 1);
  }
  static void launched_as(int fd, unsigned rank, unsigned size) {
    setenv("PMI_FD", std::to_string(fd).c_str(), 1);
    setenv("PMI_RANK", std::to_string(rank).c_str(), 1);
    setenv("PMI_SIZE", std::to_string(size).c_str(), 1);
  }
  // Starts a bootstrap; on failure the message is in `error_`.
  Status start() {
    error_.clear();
    return create_bootstrap(bootstrap_, error_);
  }

  std::unique_ptr<Bootstrap> bootstrap_;
  std::string error_;
  std::vector<std::pair<std::string, std::string>> saved_;
};

const Step kInitV2 = v1("cmd=response_to_init pmi_version=2 pmi_subversion=0 rc=0");

std::vector<Step> v2_start(const std::string& mapping) {
  return {kInitV2, v2("cmd=fullinit-response;pmi-version=2;pmi-subversion=0;rank=0;size=2;appnum=0;rc=0;"),
          v2("cmd=job-getid-response;jobid=kvs_77_0;rc=0;"),
          v2("cmd=info-getjobattr-response;found=TRUE;value=" + mapping + ";rc=0;")};
}

TEST_F(PmiClient, Pmi2JobFactsPutFenceGet) {
  std::vector<Step> script = v2_start("(vector,(0,2,1))");
  script.push_back(v2("cmd=kvs-put-response;rc=0;"));
  script.push_back(v2("cmd=kvs-fence-response;rc=0;"));
  script.push_back(v2("cmd=kvs-get-response;found=TRUE;value=v6869;rc=0;"));  // "hi"
  script.push_back(v2("cmd=kvs-get-response;found=FALSE;rc=0;"));
  script.push_back(v2("cmd=finalize-response;rc=0;"));
  ScriptedServer server(script);
  launched_as(server.client_fd(), 0, 2);
  setenv("TERN_BOOTSTRAP", "pmi2", 1);
  setenv("PMI_JOBID", "42.0", 1);  // as srun --mpi=pmi2 sets it
  ASSERT_EQ(start(), Status::Ok) << error_;
  Bootstrap& b = *bootstrap_;
  EXPECT_STREQ(b.name(), "pmi2");
  EXPECT_EQ(b.rank(), 0u);
  EXPECT_EQ(b.size(), 2u);
  EXPECT_EQ(b.job_id(), "kvs_77_0");
  // Two nodes, one rank each: alone on its node.
  EXPECT_EQ(b.local_peers(), std::vector<unsigned>{0});
  EXPECT_EQ(b.node_id(), 0u);
  const std::string mine = "ab";
  ASSERT_EQ(b.put("tern.test", std::as_bytes(std::span(mine.data(), mine.size()))), Status::Ok);
  ASSERT_EQ(b.commit(), Status::Ok);
  ASSERT_EQ(b.fence(true), Status::Ok);
  std::vector<std::byte> value;
  ASSERT_EQ(b.get(1, "tern.test", value), Status::Ok) << b.last_error();
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(value.data()), value.size()), "hi");
  EXPECT_EQ(b.get(1, "tern.other", value), Status::NotFound);
  // Its own keys come back without asking the server.
  ASSERT_EQ(b.get(0, "tern.test", value), Status::Ok);
  EXPECT_EQ(value.size(), 2u);
  EXPECT_EQ(b.get(2, "tern.test", value), Status::InvalidParam);
  bootstrap_.reset();
  const auto& sent = server.commands();
  ASSERT_GE(sent.size(), 8u);
  EXPECT_EQ(sent[0], "cmd=init pmi_version=2 pmi_subversion=0");
  EXPECT_EQ(sent[1], "cmd=fullinit;pmijobid=42.0;pmirank=0;threaded=FALSE;");
  EXPECT_EQ(sent[4], "cmd=kvs-put;key=tern.test@0;value=v6162;");
  EXPECT_EQ(sent[5], "cmd=kvs-fence;");
  EXPECT_EQ(sent[6], "cmd=kvs-get;jobid=kvs_77_0;srcid=-1;key=tern.test@1;");
}

TEST_F(PmiClient, OutsideSlurmPmi1IsSpokenFirst) {
  ScriptedServer server({v1("cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0"),
                         v1("cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024"),
                         v1("cmd=my_kvsname kvsname=kvs_6_0"), v1("cmd=get_result rc=-1 msg=key_not_found"),
                         v1("cmd=finalize_ack")});
  launched_as(server.client_fd(), 0, 2);
  setenv("MPI_LOCALNRANKS", "2", 1);
  ASSERT_EQ(start(), Status::Ok) << error_;
  EXPECT_STREQ(bootstrap_->name(), "pmi1");
  // No PMI_process_mapping: hydra's MPI_LOCALNRANKS says the whole job is here.
  EXPECT_EQ(bootstrap_->local_peers(), (std::vector<unsigned>{0, 1}));
  bootstrap_.reset();
  ASSERT_FALSE(server.commands().empty());
  EXPECT_EQ(server.commands()[0], "cmd=init pmi_version=1 pmi_subversion=1");
}

// Under srun PMI-2 comes first; a server that declines it gets PMI-1.
TEST_F(PmiClient, Pmi1WhereTheServerDeclinesPmi2AndLongValuesAreSplit) {
  std::vector<Step> script = {
      v1("cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=1"),
      v1("cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=0"),
      v1("cmd=maxes kvsname_max=256 keylen_max=64 vallen_max=1024"),
      v1("cmd=my_kvsname kvsname=kvs_5_0"),
      v1("cmd=get_result rc=0 msg=success value=(vector,(0,1,1))")};
  // 2000 bytes: 4000 hex characters, in five entries that fit a 1024-byte
  // command line, and the head that says how many.
  for (int i = 0; i < 6; ++i) script.push_back(v1("cmd=put_result rc=0 msg=success"));
  script.push_back(v1("cmd=barrier_out rc=0"));
  script.push_back(v1("cmd=finalize_ack"));
  ScriptedServer server(script);
  launched_as(server.client_fd(), 1, 3);
  setenv("SLURM_STEP_ID", "0", 1);
  ASSERT_EQ(start(), Status::Ok) << error_;
  Bootstrap& b = *bootstrap_;
  EXPECT_STREQ(b.name(), "pmi1");
  EXPECT_EQ(b.rank(), 1u);
  EXPECT_EQ(b.size(), 3u);
  // "(vector,(0,1,1))" repeats: every rank on node 0.
  EXPECT_EQ(b.local_peers(), (std::vector<unsigned>{0, 1, 2}));
  EXPECT_EQ(b.local_rank(), 1u);
  std::vector<std::byte> big(2000, std::byte{0x5a});
  ASSERT_EQ(b.put("tern.big", big), Status::Ok);
  ASSERT_EQ(b.commit(), Status::Ok) << b.last_error();
  ASSERT_EQ(b.fence(false), Status::Ok) << b.last_error();
  bootstrap_.reset();
  const auto& sent = server.commands();
  ASSERT_GE(sent.size(), 10u);
  EXPECT_EQ(sent[1], "cmd=init pmi_version=1 pmi_subversion=1");
  EXPECT_EQ(sent[4], "cmd=get kvsname=kvs_5_0 key=PMI_process_mapping");
  std::size_t parts = 0;
  for (const auto& command : sent) {
    EXPECT_LE(command.size() + 1, 1024u) << command;
    if (command.rfind("cmd=put kvsname=kvs_5_0 key=tern.big@1#", 0) == 0) ++parts;
  }
  EXPECT_EQ(parts, 5u);
  EXPECT_NE(std::find(sent.begin(), sent.end(), "cmd=put kvsname=kvs_5_0 key=tern.big@1 value=c" +
                                                    std::to_string(parts)),
            sent.end());
  EXPECT_EQ(sent[5 + parts + 1], "cmd=barrier_in");
  EXPECT_EQ(sent.back(), "cmd=finalize");
}

// Each bad answer at start-up fails, naming the command and what came back.
struct BadAnswer {
  const char* name;
  std::vector<Step> script;
  const char* message;
  const char* mode = "pmi2";
};

class PmiClientBadAnswer : public PmiClient, public ::testing::WithParamInterface<BadAnswer> {};

TEST_P(PmiClientBadAnswer, FailsNamingTheCommand) {
  ScriptedServer server(GetParam().script);
  launched_as(server.client_fd(), 0, 2);
  setenv("TERN_BOOTSTRAP_TIMEOUT", "1", 1);
  setenv("TERN_BOOTSTRAP", GetParam().mode, 1);
  EXPECT_NE(start(), Status::Ok);
  EXPECT_EQ(bootstrap_, nullptr);
  EXPECT_NE(error_.find(GetParam().message), std::string::npos) << error_;
}

INSTANTIATE_TEST_SUITE_P(
    Answers, PmiClientBadAnswer,
    ::testing::Values(
        BadAnswer{"HangUpAtInit", {Step{false, "", true}}, "closed the connection (PMI_FD) while 'cmd=init"},
        BadAnswer{"SilentAtInit", {Step{false, "", false, true}}, "no answer to 'cmd=init pmi_version=2"},
        BadAnswer{"WrongCommand", {v1("cmd=barrier_out")}, "was answered by 'cmd=barrier_out', not cmd=response_to_init"},
        BadAnswer{"NotKeyValue", {v1("garbage")}, "is malformed"},
        BadAnswer{"BadLengthField", {kInitV2, v2_raw("12x456cmd=fullinit-response;")}, "bad length field '12x456'"},
        BadAnswer{"HugeLength", {kInitV2, v2_raw("999999")}, "bad length field '999999'"},
        BadAnswer{"FullinitRefused", {kInitV2, v2("cmd=fullinit-response;rc=-1;errmsg=no_such_rank;")},
                  "failed with rc=-1 (no_such_rank)"},
        BadAnswer{"RankOutOfSize", {kInitV2, v2("cmd=fullinit-response;rank=5;size=2;rc=0;")},
                  "without a rank below a size"},
        BadAnswer{"RankNotOurs", {kInitV2, v2("cmd=fullinit-response;rank=1;size=2;rc=0;")},
                  "the server says rank 1 of 2, the environment PMI_RANK=0"},
        BadAnswer{"NoJobId", {kInitV2, v2("cmd=fullinit-response;rank=0;size=2;rc=0;"), v2("cmd=job-getid-response;rc=0;")},
                  "without a jobid"},
        BadAnswer{"Pmi1WithoutMaxes", {v1("cmd=response_to_init pmi_version=1 rc=0"), v1("cmd=maxes rc=0")},
                  "without usable keylen_max and vallen_max", "pmi1"},
        BadAnswer{"Pmi1Refused", {v1("cmd=response_to_init pmi_version=1 rc=-1")}, "failed with rc=-1", "pmi1"},
        BadAnswer{"Pmi1GetMaxesAnsweredOtherwise",
                  {v1("cmd=response_to_init pmi_version=1 rc=0"), v1("cmd=my_kvsname kvsname=x")},
                  "'cmd=get_maxes' was answered by 'cmd=my_kvsname kvsname=x', not cmd=maxes", "pmi1"}),
    [](const ::testing::TestParamInfo<BadAnswer>& info) { return std::string(info.param.name); });

TEST_F(PmiClient, BadValuesFromTheServerAreRefused) {
  std::vector<Step> script = v2_start("(vector,(0,1,2))");
  script.push_back(v2("cmd=kvs-get-response;found=TRUE;value=vZZ;rc=0;"));
  script.push_back(v2("cmd=kvs-get-response;found=TRUE;value=c99999999;rc=0;"));
  script.push_back(v2("cmd=kvs-get-response;found=TRUE;value=c2;rc=0;"));
  script.push_back(v2("cmd=kvs-get-response;found=FALSE;rc=0;"));
  script.push_back(v2("cmd=kvs-get-response;rc=0;"));
  script.push_back(v2("cmd=finalize-response;rc=0;"));
  ScriptedServer server(script);
  launched_as(server.client_fd(), 0, 2);
  setenv("TERN_BOOTSTRAP", "pmi2", 1);
  ASSERT_EQ(start(), Status::Ok) << error_;
  EXPECT_EQ(bootstrap_->local_peers(), (std::vector<unsigned>{0, 1}));
  std::vector<std::byte> value;
  EXPECT_EQ(bootstrap_->get(1, "k", value), Status::IoError);
  EXPECT_NE(bootstrap_->last_error().find("not hex"), std::string::npos) << bootstrap_->last_error();
  EXPECT_EQ(bootstrap_->get(1, "k", value), Status::IoError);
  EXPECT_NE(bootstrap_->last_error().find("neither v<hex> nor c<count>"), std::string::npos);
  EXPECT_EQ(bootstrap_->get(1, "k", value), Status::IoError);
  EXPECT_NE(bootstrap_->last_error().find("part 0 of 2 is missing"), std::string::npos);
  EXPECT_EQ(bootstrap_->get(1, "k", value), Status::IoError);
  EXPECT_NE(bootstrap_->last_error().find("without found=TRUE or FALSE"), std::string::npos);
}

TEST(PmiProcessMapping, BlocksRepeatUntilEveryRankHasANode) {
  std::vector<unsigned> nodes;
  std::string why;
  ASSERT_TRUE(parse_pmi_process_mapping("(vector,(0,1,1))", 3, nodes, why)) << why;
  EXPECT_EQ(nodes, (std::vector<unsigned>{0, 0, 0}));
  ASSERT_TRUE(parse_pmi_process_mapping("(vector,(0,2,1))", 4, nodes, why)) << why;
  EXPECT_EQ(nodes, (std::vector<unsigned>{0, 1, 0, 1}));
  ASSERT_TRUE(parse_pmi_process_mapping("(vector,(0,2,2),(2,1,1))", 5, nodes, why)) << why;
  EXPECT_EQ(nodes, (std::vector<unsigned>{0, 0, 1, 1, 2}));
  ASSERT_TRUE(parse_pmi_process_mapping(" ( vector, (3,1,2) ) ", 2, nodes, why)) << why;
  EXPECT_EQ(nodes, (std::vector<unsigned>{3, 3}));
}

TEST(PmiProcessMapping, AnythingElseIsRefused) {
  std::vector<unsigned> nodes;
  for (const char* bad : {"", "(vector)", "(vector,(0,0,0))", "(vector,(0,1))", "vector,(0,1,1)", "(vector,(0,1,1)) x",
                          "(vector,(0,1,-1))", "(vector,(99999999999,1,1))", "(vector,(0,1,1)"}) {
    std::string why;
    EXPECT_FALSE(parse_pmi_process_mapping(bad, 2, nodes, why)) << bad;
    EXPECT_FALSE(why.empty()) << bad;
  }
}

// ---- which bootstrap the environment asks for

TEST_F(PmiClient, NoLauncherInSightIsASingleton) {
  ASSERT_EQ(start(), Status::Ok) << error_;
  EXPECT_STREQ(bootstrap_->name(), "singleton");
  setenv("SLURM_STEP_ID", "0", 1);
  setenv("SLURM_NTASKS", "1", 1);  // srun -n 1 without --mpi: a job of one is right
  ASSERT_EQ(start(), Status::Ok) << error_;
  EXPECT_STREQ(bootstrap_->name(), "singleton");
}

struct UnsupportedLauncher {
  const char* name;
  std::vector<std::pair<const char*, const char*>> environment;
  const char* seen;
};

class PmiClientLauncher : public PmiClient, public ::testing::WithParamInterface<UnsupportedLauncher> {};

TEST_P(PmiClientLauncher, StopsNamingWhatWasSeenAndWhatWorks) {
  for (const auto& [name, value] : GetParam().environment) setenv(name, value, 1);
  EXPECT_EQ(start(), Status::Unreachable);
  EXPECT_EQ(bootstrap_, nullptr);
  EXPECT_NE(error_.find(GetParam().seen), std::string::npos) << error_;
  EXPECT_NE(error_.find("srun --mpi=pmix"), std::string::npos) << error_;
  EXPECT_NE(error_.find("ternrun"), std::string::npos) << error_;
  EXPECT_NE(error_.find("TERN_BOOTSTRAP=singleton"), std::string::npos) << error_;
  // Asked for by name, a singleton is what it gets.
  setenv("TERN_BOOTSTRAP", "singleton", 1);
  ASSERT_EQ(start(), Status::Ok) << error_;
  EXPECT_STREQ(bootstrap_->name(), "singleton");
}

INSTANTIATE_TEST_SUITE_P(
    Environments, PmiClientLauncher,
    ::testing::Values(
        UnsupportedLauncher{"SrunWithoutMpi", {{"SLURM_STEP_ID", "0"}, {"SLURM_NTASKS", "2"}}, "SLURM_NTASKS=2"},
        UnsupportedLauncher{"SrunStepTasks",
                            {{"SLURM_STEP_ID", "3"}, {"SLURM_NTASKS", "1"}, {"SLURM_STEP_NUM_TASKS", "4"}},
                            "SLURM_STEP_NUM_TASKS=4"},
        UnsupportedLauncher{"OpenMpiWithoutPmix", {{"OMPI_COMM_WORLD_SIZE", "2"}}, "OMPI_COMM_WORLD_SIZE=2"},
        UnsupportedLauncher{"PmiPort", {{"PMI_PORT", "node1:4242"}, {"PMI_RANK", "0"}}, "PMI_PORT=node1:4242"},
        UnsupportedLauncher{"PmiRankWithoutFd", {{"PMI_RANK", "1"}, {"PMI_SIZE", "2"}}, "PMI_RANK=1"},
        UnsupportedLauncher{"HydraLocalRanks", {{"MPI_LOCALNRANKS", "2"}}, "MPI_LOCALNRANKS=2"}),
    [](const ::testing::TestParamInfo<UnsupportedLauncher>& info) { return std::string(info.param.name); });

TEST_F(PmiClient, PmiModeWithoutAPmiLauncherFails) {
  setenv("TERN_BOOTSTRAP", "pmi", 1);
  EXPECT_EQ(start(), Status::Unreachable);
  EXPECT_NE(error_.find("PMI_FD is not set"), std::string::npos) << error_;
}

TEST_F(PmiClient, ClosedPmiFdIsNamed) {
  int fds[2];
  ASSERT_EQ(pipe(fds), 0);
  ::close(fds[0]);
  ::close(fds[1]);
  launched_as(fds[0], 0, 2);
  EXPECT_EQ(start(), Status::InvalidParam);
  EXPECT_NE(error_.find("PMI_FD='" + std::to_string(fds[0]) + "' is not an open file descriptor"), std::string::npos)
      << error_;
}

TEST_F(PmiClient, Pmi2OnlyRefusesAPmi1Server) {
  ScriptedServer server({v1("cmd=response_to_init pmi_version=1 pmi_subversion=1 rc=1")});
  launched_as(server.client_fd(), 0, 2);
  setenv("TERN_BOOTSTRAP", "pmi2", 1);
  EXPECT_EQ(start(), Status::Unsupported);
  EXPECT_NE(error_.find("does not speak PMI-2"), std::string::npos) << error_;
}

}  // namespace
}  // namespace tern::runtime
