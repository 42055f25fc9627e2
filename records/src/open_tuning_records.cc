#include "qtune/records/open_tuning_records.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <stdexcept>
#include <utility>

#include "qtune/records/tuning_db.h"
#include "qtune/records/tuning_log.h"

namespace qtune::records {

namespace {

bool starts_with_sqlite_header(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path + ": cannot open: " + std::strerror(errno));
  static constexpr char kSqliteMagic[16] = {'S', 'Q', 'L', 'i', 't', 'e', ' ', 'f',
                                            'o', 'r', 'm', 'a', 't', ' ', '3', '\0'};
  char head[16] = {};
  in.read(head, sizeof head);
  return in.gcount() == sizeof head && std::memcmp(head, kSqliteMagic, sizeof head) == 0;
}

}  // namespace

std::unique_ptr<TuningRecords> open_tuning_records(const std::string& path, KeyValidators validators) {
  if (starts_with_sqlite_header(path))
    return std::make_unique<TuningDb>(TuningDb::open(path, OpenMode::read_only, std::move(validators)));
  return std::make_unique<TuningLog>(TuningLog::open(path, validators));
}

}  // namespace qtune::records
