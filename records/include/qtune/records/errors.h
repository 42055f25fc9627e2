// Errors of the tuning database: each names the file and what is wrong with it, so that the CLI
// can print them as they are ("tuning.db: not a qtune database (no qtune schema)").
#pragma once

#include <stdexcept>
#include <string>

namespace qtune::records {

class DbError : public std::runtime_error {
 public:
  enum class Kind {
    not_found,      // the file does not exist (and the mode does not create it)
    not_qtune,      // an empty file, not SQLite, or SQLite without qtune's schema
    newer_version,  // written by a newer qtune: never touched
    corrupt,        // SQLite says the file is damaged (integrity check, truncation)
    busy,           // other writers held the lock for longer than the retry budget
    io,             // anything else SQLite or the OS reported
  };
  DbError(Kind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

}  // namespace qtune::records
