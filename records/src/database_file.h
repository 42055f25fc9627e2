// Opening a database file safely: existing files are inspected read-only before anything writes
// to them, and new databases appear atomically (built under a temporary name, then linked).
#pragma once

#include <string>

#include "qtune/records/tuning_db.h"
#include "sqlite_handle.h"

namespace qtune::records {

// Checks read-only that `path` is a sound qtune database and returns its schema version.
// DbError (not_qtune, newer_version, corrupt, io) otherwise; the file is never modified.
int inspect_database_file(const std::string& path);

// Creates a new, fully initialised qtune database at `path` unless a file appears there first
// (another process won the race); either way `path` exists afterwards.
void create_database_file(const std::string& path);

// How writable connections sync. In WAL mode NORMAL keeps the database consistent across any
// crash, and a commit is in the operating system's hands before it returns, so a tuning process
// killed at any moment (kill -9) loses nothing it committed; only a power loss or an OS crash can
// drop the last few commits (measurements, which are cheap to redo), never corrupt the file. FULL
// would add an fsync per measurement, which on a shared virtual machine's disk can take longer
// than the measurement itself (docs/measurements.md, "Database").
inline constexpr const char* kSynchronousMode = "PRAGMA synchronous = NORMAL";

// Opens a connection with qtune's settings (foreign keys, WAL, kSynchronousMode), migrating an
// older schema in place when writable. Returns the connection and its schema version.
sqlite::Connection connect(const std::string& path, OpenMode mode, int& schema_version);

}  // namespace qtune::records
