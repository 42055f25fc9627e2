// Workload, target and configuration keys are printable ASCII. Anything else in a key (a stray
// byte of a non-UTF-8 command line, a control character) is refused by every key parser with a
// message that shows the byte escaped: a raw invalid byte in a message would make every later JSON
// serialization of that message (logs, the measurement worker's answer) throw.
#pragma once

#include <string>
#include <string_view>

namespace qtune {

// Empty when every byte of `key` is printable ASCII (0x20..0x7e), else e.g.
// "workload key 'gemm:m=\xff': byte 0xff at offset 7 is not printable ASCII (keys are ASCII text)".
std::string key_text_problem(std::string_view what, std::string_view key);

// `text` with every byte outside printable ASCII written as \xNN and a backslash as \\: safe to put
// in a message or a JSON string.
std::string printable(std::string_view text);

}  // namespace qtune
