#include "session_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

namespace qtune::records {

SessionLock::SessionLock(const std::string& database_path)
    : fd_(::open((database_path + "-wal").c_str(), O_RDONLY | O_CLOEXEC)) {}

SessionLock::~SessionLock() {
  if (fd_ >= 0) ::close(fd_);
}

bool SessionLock::no_session_alive() { return fd_ >= 0 && ::flock(fd_, LOCK_EX | LOCK_NB) == 0; }

void SessionLock::hold_shared() {
  if (fd_ < 0) return;
  while (::flock(fd_, LOCK_SH) != 0 && errno == EINTR) {
  }
}

}  // namespace qtune::records
