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

// Opens a connection with qtune's settings (foreign keys, WAL, synchronous=FULL), migrating an
// older schema in place when writable. Returns the connection and its schema version.
sqlite::Connection connect(const std::string& path, OpenMode mode, int& schema_version);

}  // namespace qtune::records
