// One way to read tuning results from a file that may be either kind: a tuning database or a
// qtune-log/1 log, told apart by the file's first bytes (the SQLite header), never by its name.
#pragma once

#include <memory>
#include <string>

#include "qtune/records/key_validators.h"
#include "qtune/records/tuning_records.h"

namespace qtune::records {

// A database is opened read-only (TuningDb::open's DbError when it is damaged or of a newer
// qtune); a log is read whole (TuningLog::open's LogError when a line is invalid).
// std::runtime_error "<path>: cannot open: <reason>" when the file is unreadable.
std::unique_ptr<TuningRecords> open_tuning_records(const std::string& path, KeyValidators validators);

}  // namespace qtune::records
