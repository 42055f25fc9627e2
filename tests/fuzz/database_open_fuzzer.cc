// The database opener and its queries (every command that takes --db): any file is opened or
// refused with DbError, never a crash; an opened file answers its queries or throws.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <string>

#include "fuzz_check.h"
#include "scratch_dir.h"
#include "qtune/records/errors.h"
#include "qtune/records/tuning_db.h"

namespace {

// The process's scratch directory (tests/scratch_dir.h), removed when the process exits.
const std::string& database_path() {
  static const qtune::testing::ScratchDir directory;
  static const std::string path = directory.file("fuzzed.db");
  return path;
}

void remove_database(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) ::unlink((path + suffix).c_str());
}

void query_everything(const qtune::records::TuningDb& db) {
  (void)db.sessions();
  (void)db.measurements();
  (void)db.all_best();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace qtune::records;
  const std::string& path = database_path();
  for (const OpenMode mode : {OpenMode::read_only, OpenMode::existing}) {
    remove_database(path);
    {
      std::ofstream out(path, std::ios::binary);
      out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
    }
    try {
      const TuningDb db = TuningDb::open(path, mode, opaque_keys());
      query_everything(db);
    } catch (const DbError&) {
    } catch (const std::invalid_argument&) {
      // A row whose text column does not parse (a session status, a measurement source).
    }
  }
  remove_database(path);
  return 0;
}
