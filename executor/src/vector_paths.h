// Which of the executor's hand-written x86 vector paths run: those the CPU has, narrowed by
// QTUNE_ISAS as the kernels are, so that a restricted run executes (and the tests check) what a
// lesser machine runs. The arithmetic they reproduce follows the CPU alone (onnxruntime's choice
// of kernel), never the restriction.
#pragma once

namespace qtune::executor {

bool avx512_paths();  // AVX-512 F, BW and VL; under QTUNE_ISAS only when it names an AVX-512 family
bool avx512_vbmi_paths();  // the same with AVX-512 VBMI (byte permutes)
bool avx2_paths();    // AVX2 and FMA; under QTUNE_ISAS only when it names avx2 or a wider family

}  // namespace qtune::executor
