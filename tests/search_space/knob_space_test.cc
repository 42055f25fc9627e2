// The generic KnobSpace on a small hand-made space with a conditional knob and a constraint.
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "qtune/search_space/knob_space.h"

namespace qtune {
namespace {

// algo in {a, b}; size only for algo=a; block numeric; constraint: block=8 needs size!=big.
KnobSpace toy_space() {
  Knob algo{"algo", {"a", "b"}, "algorithm", false, "a"};
  Knob size{"size", {"small", "big"}, "only for algo=a", false, "small"};
  size.depends_on = "algo";
  size.when = {"a"};
  Knob block{"block", {"0", "2", "8"}, "numeric", true, "0"};
  block.feature_values = {5.0, 1.0, 3.0};
  auto rule = [](const Config& c) -> std::string {
    for (const auto& [k, v] : c.assignments())
      if (k == "size" && v == "big" && c.get("block") == "8") return "block=8 does not fit size=big";
    return "";
  };
  return KnobSpace("toy", {algo, size, block}, {rule});
}

TEST(ConfigKey, CanonicalOrderAndFnvHash) {
  const Config c({{"isa", "avx2"}, {"tile", "4x8"}, {"kc", "256"}, {"mc", "0"}, {"nc", "0"},
                  {"pack_a", "1"}, {"fuse", "1"}, {"threads", "1"}});
  EXPECT_EQ(c.key(), "isa=avx2;tile=4x8;kc=256;mc=0;nc=0;pack_a=1;fuse=1;threads=1");
  // Fixed values: the hash must never change between runs, builds or machines.
  EXPECT_EQ(c.hash(), 0x94070c28834dba4aull);
  EXPECT_EQ(Config(std::vector<std::pair<std::string, std::string>>{{"a", ""}}).key(), "a=");
  EXPECT_EQ(Config().hash(), 0xcbf29ce484222325ull);  // FNV-1a 64 offset basis for ""
  EXPECT_EQ(c.get_int("kc"), 256);
  EXPECT_THROW(c.get("nope"), InvalidConfig);
  EXPECT_THROW(c.get_int("isa"), InvalidConfig);
}

TEST(KnobSpace, EnumerationSkipsInactiveKnobsAndConstraintViolations) {
  const KnobSpace s = toy_space();
  std::set<std::string> keys;
  for (const Config& c : s.enumerate()) keys.insert(c.key());
  const std::set<std::string> expected = {
      "algo=a;size=small;block=0", "algo=a;size=small;block=2", "algo=a;size=small;block=8",
      "algo=a;size=big;block=0",   "algo=a;size=big;block=2",   "algo=b;block=0",
      "algo=b;block=2",            "algo=b;block=8"};
  EXPECT_EQ(keys, expected);
  EXPECT_EQ(s.size(), 8u);
}

TEST(KnobSpace, ParseAcceptsAnyOrderAndPrintsCanonically) {
  const KnobSpace s = toy_space();
  EXPECT_EQ(s.parse("block=2;size=big;algo=a").key(), "algo=a;size=big;block=2");
  for (const Config& c : s.enumerate()) EXPECT_EQ(s.parse(c.key()), c);
}

std::string parse_error(const KnobSpace& s, const std::string& key) {
  try {
    s.parse(key);
  } catch (const InvalidConfig& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(KnobSpace, ParseErrorsNameTheProblem) {
  const KnobSpace s = toy_space();
  const std::string unknown = parse_error(s, "algo=a;size=big;block=2;colour=red");
  EXPECT_NE(unknown.find("unknown knob 'colour'"), std::string::npos) << unknown;
  EXPECT_NE(unknown.find("algo, size, block"), std::string::npos) << unknown;

  const std::string bad = parse_error(s, "algo=a;size=huge;block=2");
  EXPECT_NE(bad.find("size=huge"), std::string::npos) << bad;
  EXPECT_NE(bad.find("allowed: small, big"), std::string::npos) << bad;

  const std::string constraint = parse_error(s, "algo=a;size=big;block=8");
  EXPECT_NE(constraint.find("block=8 does not fit size=big"), std::string::npos) << constraint;

  const std::string inactive = parse_error(s, "algo=b;size=big;block=8");
  EXPECT_NE(inactive.find("'size' does not apply"), std::string::npos) << inactive;

  EXPECT_NE(parse_error(s, "algo=a;algo=b;size=big;block=0").find("given twice"), std::string::npos);
  EXPECT_NE(parse_error(s, "algo=a;size;block=0").find("malformed item 'size'"), std::string::npos);
  EXPECT_NE(parse_error(s, "algo=a;size=big;block=0;").find("malformed"), std::string::npos);
  EXPECT_NE(parse_error(s, "").find("empty configuration"), std::string::npos);
}

// A key written before a knob existed lacks it: it reads with the knob's default, as long as that
// default is a value of the space; unknown knobs and values stay errors.
TEST(KnobSpace, KeysWithoutANewerKnobReadWithItsDefault) {
  const KnobSpace s = toy_space();
  EXPECT_EQ(s.parse("algo=a;block=2").key(), "algo=a;size=small;block=2");
  EXPECT_EQ(s.parse("algo=b").key(), "algo=b;block=0");
  EXPECT_EQ(s.parse("block=8").key(), "algo=a;size=small;block=8");
  EXPECT_NE(parse_error(s, "algo=a;block=2;colour=red").find("unknown knob 'colour'"), std::string::npos);

  Knob narrowed{"size", {"big"}, "a domain without the default", false, "small"};
  const KnobSpace without_default("toy", {narrowed}, {});
  EXPECT_NE(parse_error(without_default, "size=tiny").find("size=tiny"), std::string::npos);
  Knob unrelated{"other", {"1"}, "", true, "1"};
  const KnobSpace later("toy", {unrelated, narrowed}, {});
  const std::string defaulted = parse_error(later, "other=1");
  EXPECT_NE(defaulted.find("size=small (the default for keys without it)"), std::string::npos) << defaulted;
  EXPECT_NE(defaulted.find("allowed: big"), std::string::npos) << defaulted;
}

TEST(KnobSpace, CheckReportsWhatParseWould) {
  const KnobSpace s = toy_space();
  EXPECT_EQ(s.check(Config({{"algo", "b"}, {"block", "8"}})), "");
  EXPECT_NE(s.check(Config({{"algo", "a"}, {"block", "8"}})), "");
  EXPECT_NE(s.check(Config({{"algo", "a"}, {"size", "big"}, {"block", "8"}})), "");
  EXPECT_NE(s.check(Config({{"algo", "b"}, {"block", "8"}, {"extra", "1"}})), "");
}

TEST(KnobSpace, SamplingIsUniformOverValidPoints) {
  const KnobSpace s = toy_space();
  std::mt19937_64 rng(7);
  std::map<std::string, int> counts;
  const int draws = 8000;
  for (int i = 0; i < draws; ++i) {
    const Config c = s.sample(rng);
    ASSERT_EQ(s.check(c), "") << c.key();
    ++counts[c.key()];
  }
  ASSERT_EQ(counts.size(), s.size());
  for (const auto& [key, n] : counts) {
    EXPECT_GT(n, draws / 8 * 0.8) << key;
    EXPECT_LT(n, draws / 8 * 1.2) << key;
  }
}

TEST(KnobSpace, RejectionSamplingOfLargeSpacesStaysUniform) {
  // 2 x 1000 x 1000 raw points (above the enumeration limit) with a conditional knob: the sampler
  // must not over-represent configurations with fewer active knobs.
  std::vector<std::string> many;
  for (int i = 0; i < 1000; ++i) many.push_back(std::to_string(i));
  Knob mode{"mode", {"x", "y"}, "", false, "x"};
  Knob p{"p", many, "", true, "0"};
  Knob q{"q", many, "", true, "0"};
  q.depends_on = "mode";
  q.when = {"x"};
  const KnobSpace s("big", {mode, p, q}, {});
  std::mt19937_64 rng(3);
  int y = 0;
  for (int i = 0; i < 400; ++i) {
    const Config c = s.sample(rng);
    ASSERT_EQ(s.check(c), "");
    if (c.get("mode") == "y") ++y;
  }
  // Valid points: 1e6 with mode=x and 1e3 with mode=y, so mode=y is rare.
  EXPECT_LT(y, 10);
}

TEST(KnobSpace, NeighboursDifferInExactlyOneKnob) {
  const KnobSpace s = toy_space();
  const Config c = s.parse("algo=a;size=small;block=8");
  const auto ns = s.neighbours(c);
  std::set<std::string> keys;
  for (const Config& n : ns) {
    keys.insert(n.key());
    EXPECT_EQ(s.check(n), "");
    int differing = 0;
    for (const auto& [k, v] : n.assignments()) {
      for (const auto& [k2, v2] : c.assignments())
        if (k == k2 && v != v2) ++differing;
    }
    // Switching algo drops 'size' (it no longer applies): that still is one knob changed.
    EXPECT_EQ(differing, 1) << n.key();
  }
  // size=big with block=8 violates the constraint, so it is not a neighbour.
  const std::set<std::string> expected = {"algo=b;block=8", "algo=a;size=small;block=0", "algo=a;size=small;block=2"};
  EXPECT_EQ(keys, expected);
  // Switching algo back to 'a' makes 'size' active again: it takes its first valid value.
  const auto from_b = s.neighbours(s.parse("algo=b;block=8"));
  std::set<std::string> back;
  for (const Config& n : from_b) back.insert(n.key());
  EXPECT_TRUE(back.count("algo=a;size=small;block=8"));
}

TEST(KnobSpace, FeaturesHaveNamesOneHotAndNumericValues) {
  const KnobSpace s = toy_space();
  const auto names = s.feature_names();
  const std::vector<std::string> expected = {"algo=a", "algo=b", "size=small", "size=big", "block"};
  EXPECT_EQ(names, expected);
  EXPECT_EQ(s.features(s.parse("algo=a;size=big;block=0")), (std::vector<double>{1, 0, 0, 1, 5.0}));
  // Inactive knob: all zeros; block=8 has the explicit feature value 3.
  EXPECT_EQ(s.features(s.parse("algo=b;block=8")), (std::vector<double>{0, 1, 0, 0, 3.0}));

  Knob tile{"tile", {"4x8", "8x16"}, "", false, "4x8"};
  Knob kc{"kc", {"0", "64"}, "", true, "0"};
  const KnobSpace shaped("t", {tile, kc}, {});
  EXPECT_EQ(shaped.feature_names(), (std::vector<std::string>{"tile.rows", "tile.cols", "tile=4x8", "tile=8x16", "kc"}));
  EXPECT_EQ(shaped.features(shaped.parse("tile=8x16;kc=64")), (std::vector<double>{3, 4, 0, 1, 6}));
}

TEST(KnobSpace, RejectsMalformedDefinitions) {
  EXPECT_THROW(KnobSpace("x", {Knob{"a", {}, "", false, "1"}}, {}), std::invalid_argument);
  EXPECT_THROW(KnobSpace("x", {Knob{"a", {"1", "1"}, "", false, "1"}}, {}), std::invalid_argument);
  EXPECT_THROW(KnobSpace("x", {Knob{"a", {"p;q"}, "", false, "1"}}, {}), std::invalid_argument);
  EXPECT_THROW(KnobSpace("x", {Knob{"a", {"z"}, "", true, "z"}}, {}), std::invalid_argument);
  // Every knob says what a key without it means.
  EXPECT_THROW(KnobSpace("x", {Knob{"a", {"1"}, "", true}}, {}), std::invalid_argument);
  EXPECT_THROW(KnobSpace("x", {Knob{"a", {"1"}, "", true, "1;b=2"}}, {}), std::invalid_argument);
  Knob late{"b", {"1"}, "", false, "1"};
  late.depends_on = "c";
  EXPECT_THROW(KnobSpace("x", {Knob{"a", {"1"}, "", false, "1"}, late, Knob{"c", {"1"}, "", false, "1"}}, {}),
               std::invalid_argument);
}

}  // namespace
}  // namespace qtune
