#include "message_framing.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>

namespace qtune::detail {
namespace {

// Reads exactly `size` bytes; status other than `message` means it could not.
ReadStatus read_exact(int fd, char* out, std::size_t size,
                      std::optional<std::chrono::steady_clock::time_point> deadline) {
  std::size_t done = 0;
  while (done < size) {
    int wait_ms = -1;
    if (deadline) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline - std::chrono::steady_clock::now());
      if (left.count() <= 0) return ReadStatus::timeout;
      wait_ms = static_cast<int>(std::min<long long>(left.count() + 1, 1 << 30));
    }
    pollfd p{fd, POLLIN, 0};
    const int ready = poll(&p, 1, wait_ms);
    if (ready < 0) {
      if (errno == EINTR) continue;
      return ReadStatus::closed;
    }
    if (ready == 0) continue;  // re-check the deadline
    const ssize_t n = recv(fd, out + done, size - done, 0);
    if (n < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return ReadStatus::closed;
    }
    if (n == 0) return ReadStatus::closed;
    done += static_cast<std::size_t>(n);
  }
  return ReadStatus::message;
}

}  // namespace

bool write_message(int fd, const std::string& payload) {
  if (payload.size() > kMaxMessageBytes) return false;
  const auto size = static_cast<std::uint32_t>(payload.size());
  std::string frame(4, '\0');
  for (int i = 0; i < 4; ++i) frame[static_cast<std::size_t>(i)] = static_cast<char>((size >> (8 * i)) & 0xFF);
  frame += payload;
  std::size_t done = 0;
  while (done < frame.size()) {
    const ssize_t n = send(fd, frame.data() + done, frame.size() - done, MSG_NOSIGNAL);
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    done += static_cast<std::size_t>(n);
  }
  return true;
}

ReadStatus read_message(int fd, std::string& payload,
                        std::optional<std::chrono::steady_clock::time_point> deadline) {
  unsigned char header[4];
  ReadStatus status = read_exact(fd, reinterpret_cast<char*>(header), 4, deadline);
  if (status != ReadStatus::message) return status;
  const std::uint32_t size = static_cast<std::uint32_t>(header[0]) | static_cast<std::uint32_t>(header[1]) << 8 |
                             static_cast<std::uint32_t>(header[2]) << 16 | static_cast<std::uint32_t>(header[3]) << 24;
  if (size > kMaxMessageBytes) return ReadStatus::malformed;
  payload.assign(size, '\0');
  return read_exact(fd, payload.data(), size, deadline);
}

}  // namespace qtune::detail
