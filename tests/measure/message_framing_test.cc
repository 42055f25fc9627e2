// Length-prefixed framing on the worker socket (the measure library's internal header).
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "measure/src/message_framing.h"

namespace qtune::detail {
namespace {

struct SocketPair {
  int fds[2] = {-1, -1};
  SocketPair() { EXPECT_EQ(socketpair(AF_UNIX, SOCK_STREAM, 0, fds), 0); }
  ~SocketPair() {
    for (int fd : fds)
      if (fd >= 0) close(fd);
  }
};

auto soon() { return std::chrono::steady_clock::now() + std::chrono::milliseconds(200); }

TEST(MessageFraming, MessagesArriveWholeAndInOrder) {
  SocketPair s;
  const std::string big(300000, 'x');
  ASSERT_TRUE(write_message(s.fds[0], "first"));
  ASSERT_TRUE(write_message(s.fds[0], ""));
  std::thread writer([&] { EXPECT_TRUE(write_message(s.fds[0], big)); });  // larger than the socket buffer
  std::string got;
  ASSERT_EQ(read_message(s.fds[1], got, soon()), ReadStatus::message);
  EXPECT_EQ(got, "first");
  ASSERT_EQ(read_message(s.fds[1], got, soon()), ReadStatus::message);
  EXPECT_EQ(got, "");
  ASSERT_EQ(read_message(s.fds[1], got, std::chrono::steady_clock::now() + std::chrono::seconds(10)),
            ReadStatus::message);
  writer.join();
  EXPECT_EQ(got, big);
}

TEST(MessageFraming, TimeoutTruncationAndGarbageAreTold) {
  {
    SocketPair s;
    std::string got;
    EXPECT_EQ(read_message(s.fds[1], got, soon()), ReadStatus::timeout);
  }
  {
    SocketPair s;
    const char partial[] = {10, 0, 0, 0, 'a', 'b'};  // says 10 bytes, sends 2, then dies
    ASSERT_EQ(write(s.fds[0], partial, sizeof partial), static_cast<ssize_t>(sizeof partial));
    close(s.fds[0]);
    s.fds[0] = -1;
    std::string got;
    EXPECT_EQ(read_message(s.fds[1], got, soon()), ReadStatus::closed);
  }
  {
    SocketPair s;
    const unsigned char huge[] = {0xFF, 0xFF, 0xFF, 0x7F};
    ASSERT_EQ(write(s.fds[0], huge, 4), 4);
    std::string got;
    EXPECT_EQ(read_message(s.fds[1], got, soon()), ReadStatus::malformed);
  }
  {
    SocketPair s;
    close(s.fds[1]);
    s.fds[1] = -1;
    EXPECT_FALSE(write_message(s.fds[0], "nobody listens"));  // EPIPE, and no SIGPIPE
  }
}

}  // namespace
}  // namespace qtune::detail
