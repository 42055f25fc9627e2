// Which configuration is a workload's best: the least median over each configuration's correct
// measurements, the same for the database and for logs.
#include <gtest/gtest.h>

#include "qtune/records/best_selection.h"
#include "records/test_support.h"

namespace qtune::records {
namespace {

using namespace testing;

MeasurementRecord with_id(MeasurementRecord r, std::int64_t id) {
  r.id = id;
  return r;
}

TEST(SelectBest, OneLuckyMeasurementDoesNotDecide) {
  const std::string a = config_key(8, 0), b = config_key(4, 0);
  // a: one quiet-moment measurement (500 ns) among two real ones (1000); b: 800 every time.
  const std::vector<MeasurementRecord> records = {
      correct(kWorkload, kTarget, a, 500), correct(kWorkload, kTarget, b, 800), correct(kWorkload, kTarget, a, 1000),
      correct(kWorkload, kTarget, b, 800), correct(kWorkload, kTarget, a, 1000)};
  const auto best = select_best(records);
  ASSERT_EQ(best.size(), 1u);
  EXPECT_EQ(best[0].config_key, b);
  EXPECT_EQ(best[0].stats->median_ns, 800);
}

TEST(SelectBest, AnEvenCountTakesTheFasterMiddleAndASingleMeasurementCounts) {
  const std::string a = config_key(8, 0), b = config_key(4, 0);
  const auto best = select_best({correct(kWorkload, kTarget, a, 900), correct(kWorkload, kTarget, a, 700),
                                 correct(kWorkload, kTarget, b, 750)});
  ASSERT_EQ(best.size(), 1u);
  EXPECT_EQ(best[0].config_key, a);  // lower median of {700, 900}
  EXPECT_EQ(best[0].stats->median_ns, 700);
}

TEST(SelectBest, ErrorsNeverCountAndPairsStaySeparate) {
  const std::string a = config_key(8, 0), b = config_key(4, 0);
  MeasurementRecord broken = correct(kWorkload, kTarget, a, 1);
  broken.error_kind = "wrong_answer";
  const auto best = select_best({broken, correct(kWorkload, kTarget, b, 900), correct(kWorkload, kTarget2, a, 100),
                                 correct(kWorkload2, kTarget, a, 50)});
  ASSERT_EQ(best.size(), 3u);  // sorted by workload key, then target key
  EXPECT_EQ(best[0].workload_key, kWorkload2);
  EXPECT_EQ(best[1].workload_key, kWorkload);
  EXPECT_EQ(best[1].target_key, kTarget2);  // "arch=aarch64..." < "arch=x86_64..."
  EXPECT_EQ(best[1].config_key, a);
  EXPECT_EQ(best[2].target_key, kTarget);
  EXPECT_EQ(best[2].config_key, b) << "the faster measurement of a is a wrong answer";
  EXPECT_TRUE(select_best({broken}).empty());
}

TEST(SelectBest, TiesGoToTheEarlierMeasurement) {
  const std::string a = config_key(8, 0), b = config_key(4, 0);
  const auto best =
      select_best({with_id(correct(kWorkload, kTarget, a, 800), 7), with_id(correct(kWorkload, kTarget, b, 800), 3)});
  ASSERT_EQ(best.size(), 1u);
  EXPECT_EQ(best[0].config_key, b);
}

}  // namespace
}  // namespace qtune::records
