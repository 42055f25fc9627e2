// Why the oneDNN layers do not let oneDNN requantize (no `out=direct` path, see
// libraries/src/onednn_layers.h): oneDNN 2.6 adds the destination zero point in float before it
// rounds, RNE(acc * scale + zp), where qtune's fp32 mode (ONNX, fbgemm) rounds first,
// RNE(acc * scale) + zp. The float addition can round away a bit that decides a tie: with
// acc * scale = 98.5 + 2^-17 and zp = 128, oneDNN gives 226 and the reference 227. Every u8 layer
// of the networks has a non-zero output zero point, so such a path could not be offered for them.
// Should a oneDNN version round as the reference does, this test fails and the path is worth
// building.
#include <gtest/gtest.h>

#if defined(QTUNE_HAVE_ONEDNN)
#include <oneapi/dnnl/dnnl.hpp>

#include <cmath>
#include <vector>

#include "qtune/kernels/quant.h"
#include "qtune/libraries/library_registry.h"

namespace qtune {
namespace {

// oneDNN's u8 matmul output where every accumulator is 1, with one output scale and zero point.
int onednn_output_of_unit_accumulators(float scale, int zero_point) {
  const int m = 16, k = 64, n = 64;
  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  std::vector<std::uint8_t> a(m * k, 0), c(m * n, 0);
  std::vector<std::int8_t> b(k * n, 0);
  for (int r = 0; r < m; ++r) a[r * k] = 1;
  for (int j = 0; j < n; ++j) b[j] = 1;
  using dnnl::memory;
  const memory::desc a_md({m, k}, memory::data_type::u8, memory::format_tag::ab);
  const memory::desc b_md({k, n}, memory::data_type::s8, memory::format_tag::ab);
  const memory::desc c_md({m, n}, memory::data_type::u8, memory::format_tag::ab);
  dnnl::primitive_attr attr;
  attr.set_output_scales(0, {scale});
  if (zero_point != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {zero_point});
  const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), attr, engine);
  memory am(a_md, engine, a.data()), bm(b_md, engine, b.data()), cm(c_md, engine, c.data());
  dnnl::matmul(pd).execute(stream, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
  stream.wait();
  for (std::uint8_t v : c) EXPECT_EQ(v, c[0]);
  return c[0];
}

TEST(OnednnDirectOutput, AddsTheOutputZeroPointBeforeRoundingUnlikeTheFp32Reference) {
  if (const std::string why = libraries::library_unavailable("onednn"); !why.empty()) GTEST_SKIP() << why;
  const double scale = 98.5 + std::ldexp(1.0, -17);  // exact in float: acc 1 -> just above a tie
  ASSERT_EQ(static_cast<double>(static_cast<float>(scale)), scale);
  for (const int zero_point : {0, 128}) {
    const RequantParams p = RequantParams::make(RoundingMode::fp32, {scale}, zero_point, 0, 255);
    const int reference = requantize_reference(1, p, 0);
    EXPECT_EQ(reference, 99 + zero_point);
    const int onednn = onednn_output_of_unit_accumulators(static_cast<float>(scale), zero_point);
    if (zero_point == 0) {
      EXPECT_EQ(onednn, reference);
    } else {
      EXPECT_EQ(onednn, reference - 1) << "oneDNN: RNE(98.5 + 2^-17 + 128 in float = 226.5) = 226";
    }
  }
}

}  // namespace
}  // namespace qtune
#endif
