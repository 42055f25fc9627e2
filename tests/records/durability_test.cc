// Crash safety and concurrent writers, with real processes: a child killed with SIGKILL in the
// middle of a stream of inserts, and two children inserting into the same file at once.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <set>

#include "qtune/records/tuning_db.h"
#include "records/test_support.h"

namespace qtune::records {
namespace {

using testing::config_key;
using testing::correct;
using testing::kTarget;
using testing::kWorkload;

// Reads whole int64 values from a pipe until EOF.
std::vector<std::int64_t> read_ids(int fd) {
  std::vector<std::int64_t> ids;
  std::int64_t id = 0;
  std::size_t have = 0;
  char* bytes = reinterpret_cast<char*>(&id);
  for (;;) {
    const ssize_t n = ::read(fd, bytes + have, sizeof id - have);
    if (n == 0) break;
    if (n < 0) {
      if (errno == EINTR) continue;
      break;
    }
    have += static_cast<std::size_t>(n);
    if (have == sizeof id) {
      ids.push_back(id);
      have = 0;
    }
  }
  return ids;
}

bool write_id(int fd, std::int64_t id) {
  return ::write(fd, &id, sizeof id) == static_cast<ssize_t>(sizeof id);
}

// In the child: any exception ends it with a distinct status; never returns into gtest.
template <typename Body>
[[noreturn]] void run_child(Body&& body) {
  int status = 0;
  try {
    body();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "child failed: %s\n", e.what());
    status = 3;
  }
  ::_exit(status);
}

TEST(DurabilityTest, KillDuringInsertsLosesNothingCommitted) {
  testing::ScratchDir dir;
  const std::string path = dir.file("tuning.db");
  TuningDb::open(path, OpenMode::create, opaque_keys());  // created before the child, so the race is only on inserts

  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(fds[0]);
    run_child([&] {
      auto db = TuningDb::open(path, OpenMode::existing, opaque_keys());
      const auto session = db.begin_session({"durability test", "random", 1, kTarget, "0.1.0"});
      for (int i = 0;; ++i) {  // until killed
        auto r = correct(kWorkload, kTarget, config_key(8, 4 * (i + 1)), 1000 + i);
        r.session_id = session;
        // Reported only after add_measurement returned, i.e. after the commit.
        if (!write_id(fds[1], db.add_measurement(r))) ::_exit(4);
      }
    });
  }
  ::close(fds[1]);
  // Wait until the child committed a good number of rows, then kill it mid-stream.
  std::vector<std::int64_t> reported;
  {
    std::int64_t id = 0;
    while (reported.size() < 40 && ::read(fds[0], &id, sizeof id) == static_cast<ssize_t>(sizeof id))
      reported.push_back(id);
  }
  ASSERT_EQ(reported.size(), 40u) << "child stopped early";
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL) << "child ended on its own, status " << status;
  // Ids written between our last read and the kill were committed too.
  for (auto id : read_ids(fds[0])) reported.push_back(id);
  ::close(fds[0]);

  auto db = TuningDb::open(path, OpenMode::existing, opaque_keys());
  EXPECT_EQ(db.integrity_check(), "ok");
  std::set<std::int64_t> stored;
  for (const auto& m : db.measurements()) stored.insert(m.id);
  for (auto id : reported) EXPECT_TRUE(stored.count(id)) << "committed measurement " << id << " lost";
  // At most the one in flight beyond what was reported.
  EXPECT_LE(stored.size(), reported.size() + 1);
  const auto sessions = db.sessions();
  ASSERT_EQ(sessions.size(), 1u);
  EXPECT_EQ(sessions[0].status, SessionStatus::running);  // it never ended
}

TEST(DurabilityTest, ConcurrentWritersLoseAndDuplicateNothing) {
  testing::ScratchDir dir;
  const std::string path = dir.file("tuning.db");
  constexpr int kWriters = 2, kOwn = 60, kShared = 15;

  // Both writers start on a missing file: creation itself must be race-free too.
  std::vector<pid_t> children;
  for (int writer = 0; writer < kWriters; ++writer) {
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
      run_child([&] {
        auto db = TuningDb::open(path, OpenMode::create, opaque_keys());
        for (int i = 0; i < kOwn + kShared; ++i) {
          if (i % 5 == 0 && i / 5 < kShared) {
            // The same measurement from both writers (think: two imports of one log) lands once.
            db.add_measurement(
                correct(kWorkload, kTarget, config_key(4, 8 * (i + 1)), 500, "2024-05-01T00:00:00Z"));
          }
          db.add_measurement(correct(kWorkload, kTarget, config_key(8, 4 * (i + 1)), 1000 + writer * 100000 + i));
        }
      });
    }
    children.push_back(child);
  }
  for (pid_t child : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << "writer failed, status " << status;
  }

  auto db = TuningDb::open(path, OpenMode::read_only, opaque_keys());
  EXPECT_EQ(db.integrity_check(), "ok");
  const auto all = db.measurements();
  EXPECT_EQ(all.size(), static_cast<std::size_t>(kWriters * (kOwn + kShared) + kShared));
  std::set<std::pair<std::string, double>> distinct;
  for (const auto& m : all) distinct.insert({m.config_key, m.stats->median_ns});
  EXPECT_EQ(distinct.size(), all.size()) << "duplicated rows";
  for (int writer = 0; writer < kWriters; ++writer) {
    for (int i = 0; i < kOwn + kShared; ++i)
      EXPECT_TRUE(distinct.count({config_key(8, 4 * (i + 1)), 1000.0 + writer * 100000 + i})) << writer << "/" << i;
  }
  // No leftovers of the atomic creation.
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(path).parent_path()))
    EXPECT_EQ(entry.path().filename().string().find(".qtune-new-"), std::string::npos) << entry.path();
}

}  // namespace
}  // namespace qtune::records
