// The database schema and its forward migrations. Version N of the schema is what the first N
// migrations build, in order, from an empty file; a new version is a new function appended to
// the list (never an edit of an old one), so every older database can be brought forward.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sqlite_handle.h"

namespace qtune::records::schema {

// PRAGMA application_id of every qtune database ("QTUN"): tells qtune's files from foreign ones.
inline constexpr std::int64_t kApplicationId = 0x5154554E;

struct Migration {
  int to_version;            // user_version after it ran
  const char* description;
  void (*apply)(sqlite::Connection& connection);
  const char* first_table;   // a table it creates: present in a file whose user_version is older
                             // means the version was set back by hand, and migrating would fail
  const char* first_column = nullptr;  // for a migration that adds columns to first_table instead:
                                       // one of them, present in an older file means the same
};

const std::vector<Migration>& migrations();
int latest_version();

// Runs the migrations from the file's version to the latest inside the caller's write
// transaction, and records the new version in PRAGMA user_version.
void migrate(sqlite::Connection& connection, int from_version);

}  // namespace qtune::records::schema
