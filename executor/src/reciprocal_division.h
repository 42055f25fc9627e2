// Division by a float b as a multiply by its rounded reciprocal corrected by two fused
// multiply-adds (Markstein's iteration: q = a*y, r = a - q*b exactly, q' = q + r*y). The result
// equals the correctly rounded a / b for most divisors but is not proven to for every one, so a
// divisor is used that way only after every float significand of a has been checked against the
// true quotient: scaling a by a power of two scales q, r and q' exactly, so that check covers every
// a whose intermediates stay normal (|a| in [2^-86, 2^80] with b in [2^-40, 2^40]; callers keep to
// that range and divide for real outside it).
#pragma once

namespace qtune::executor {

struct ReciprocalDivisor {
  float divisor = 1;
  float reciprocal = 1;
  bool exact = false;  // the iteration equals a / b for every a in range (checked); else divide
};

// Thread-safe; each divisor is checked once per process (about 2 ms). Only where the executor's
// AVX-512 paths run (avx512_paths(): the kernels using the iteration are those): elsewhere exact
// is false.
ReciprocalDivisor reciprocal_divisor(float b);

// The range of divisors the check covers.
bool reciprocal_divisor_in_range(float b);

}  // namespace qtune::executor
