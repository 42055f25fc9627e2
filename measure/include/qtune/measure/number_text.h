// Numbers as people read them in qtune's tables and messages: times with a unit chosen by their
// size, and fixed decimals. One spelling for the CLI, the tuner's progress and the reports.
#pragma once

#include <string>

namespace qtune {

// v with exactly `digits` digits after the point ("%.*f").
std::string fixed(double v, int digits);

// "850 ns", "12.35 us", "1.23 ms", "2.50 s".
std::string format_time_ns(double ns);

}  // namespace qtune
