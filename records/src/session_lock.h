// Which sessions marked 'running' are really running. Internal to TuningDb.
//
// A killed `qtune tune` cannot end its session, so its row keeps status 'running' forever unless
// someone notices. Every process with an open session holds a shared flock() on the database's
// write-ahead log file ("<db>-wal", open for as long as any connection is). The next session to
// begin tries to take that lock exclusively: if it can, no session process is alive, and every row
// still 'running' belongs to a killed session and becomes 'interrupted'. If it cannot, some session
// is alive and nothing is changed (a live session is never marked).
//
// Why the -wal file: flock() locks do not interact with SQLite's fcntl() locks, but opening and
// closing a descriptor of the database file itself would drop the process's fcntl() locks on it
// (POSIX semantics); SQLite takes no locks on the -wal file, and the file exists, same inode, for
// as long as a session's connection is open.
#pragma once

#include <string>

namespace qtune::records {

class SessionLock {
 public:
  // Opens "<database_path>-wal"; a lock that cannot be opened or taken makes every call a no-op
  // answer of "someone may be running" (never a wrong "nobody is running").
  explicit SessionLock(const std::string& database_path);
  ~SessionLock();
  SessionLock(const SessionLock&) = delete;
  SessionLock& operator=(const SessionLock&) = delete;

  // True when no process holds a session: this process now holds the lock exclusively.
  bool no_session_alive();
  // Holds the lock shared for as long as this object lives (downgrading from exclusive).
  void hold_shared();

 private:
  int fd_ = -1;
};

}  // namespace qtune::records
