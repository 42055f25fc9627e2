// Length-prefixed messages on a stream socket: 4-byte little-endian length, then the payload.
// A reader can always tell a complete message from a worker that died half-way.
#pragma once

#include <chrono>
#include <optional>
#include <string>

namespace qtune::detail {

inline constexpr std::size_t kMaxMessageBytes = 64u << 20;

// False when the peer is gone (EPIPE / ECONNRESET); never raises SIGPIPE.
bool write_message(int fd, const std::string& payload);

enum class ReadStatus { message, closed, timeout, malformed };

// Blocks until a whole message arrives, the peer closes (also mid-message), or `deadline`
// passes (std::nullopt deadline: wait forever).
ReadStatus read_message(int fd, std::string& payload,
                        std::optional<std::chrono::steady_clock::time_point> deadline);

}  // namespace qtune::detail
