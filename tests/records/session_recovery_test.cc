// Sessions of killed processes: once no session process is alive, the next session marks their
// rows 'interrupted'; a session that is alive is never marked.
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "qtune/records/tuning_db.h"
#include "records/test_support.h"

namespace qtune::records {
namespace {

SessionStatus status_of(const TuningDb& db, std::int64_t session) {
  const auto record = db.session(session);
  return record ? record->status : SessionStatus::failed;
}

// Begins a session in a child process that then dies without ending it (as a killed `qtune tune`).
std::int64_t session_of_a_killed_process(const std::string& path) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) throw std::runtime_error("pipe failed");
  const pid_t child = ::fork();
  if (child == 0) {
    ::close(pipe_fds[0]);
    std::int64_t id = -1;
    try {
      auto db = TuningDb::open(path, OpenMode::existing, opaque_keys());
      id = db.begin_session({"qtune tune", "random", 1, testing::kTarget, "0.1.0"});
    } catch (...) {
    }
    (void)!::write(pipe_fds[1], &id, sizeof id);
    ::_exit(0);  // no destructors, no end_session: killed
  }
  ::close(pipe_fds[1]);
  std::int64_t id = -1;
  (void)!::read(pipe_fds[0], &id, sizeof id);
  ::close(pipe_fds[0]);
  int status = 0;
  ::waitpid(child, &status, 0);
  return id;
}

class SessionRecoveryTest : public ::testing::Test {
 protected:
  testing::ScratchDir dir;
};

TEST_F(SessionRecoveryTest, NextSessionMarksAKilledSessionInterrupted) {
  const auto path = dir.file("tuning.db");
  TuningDb::open(path, OpenMode::create, opaque_keys());
  const std::int64_t killed = session_of_a_killed_process(path);
  ASSERT_GT(killed, 0);
  auto db = TuningDb::open(path, OpenMode::existing, opaque_keys());
  EXPECT_EQ(status_of(db, killed), SessionStatus::running) << "nobody has looked yet";
  const auto next = db.begin_session({"qtune tune", "random", 2, testing::kTarget, "0.1.0"});
  EXPECT_EQ(status_of(db, killed), SessionStatus::interrupted);
  EXPECT_EQ(db.session(killed)->ended_at, "") << "when it died is unknown";
  EXPECT_EQ(status_of(db, next), SessionStatus::running);
  db.end_session(next, SessionStatus::completed);
  EXPECT_EQ(status_of(db, next), SessionStatus::completed);
}

TEST_F(SessionRecoveryTest, ALiveSessionIsNeverMarked) {
  const auto path = dir.file("tuning.db");
  auto first = TuningDb::open(path, OpenMode::create, opaque_keys());
  const auto alive = first.begin_session({"qtune tune", "random", 1, testing::kTarget, "0.1.0"});
  auto second = TuningDb::open(path, OpenMode::existing, opaque_keys());
  const auto other = second.begin_session({"qtune tune", "random", 2, testing::kTarget, "0.1.0"});
  EXPECT_EQ(status_of(second, alive), SessionStatus::running);
  EXPECT_EQ(status_of(first, other), SessionStatus::running);
  // A killed session next to a live one stays 'running' until the live one is gone too.
  const std::int64_t killed = session_of_a_killed_process(path);
  auto third = TuningDb::open(path, OpenMode::existing, opaque_keys());
  third.begin_session({"qtune tune", "random", 3, testing::kTarget, "0.1.0"});
  EXPECT_EQ(status_of(third, killed), SessionStatus::running);
  EXPECT_EQ(status_of(third, alive), SessionStatus::running);
}

}  // namespace
}  // namespace qtune::records
