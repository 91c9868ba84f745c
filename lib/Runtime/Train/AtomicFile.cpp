#include "rvnn/Runtime/Train/AtomicFile.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include <fcntl.h>
#include <unistd.h>

namespace rvnn::runtime::train {

namespace {

/// TEST-ONLY crash injection for test/Runtime/kill-resume.test: with
/// RVNN_TEST_KILL_ATOMIC_WRITE=<n>:<stage>, the n-th AtomicFileWriter of the
/// process (1-based, every file: checkpoints, metrics, weights) kills the
/// process with SIGKILL at <stage>:
///   write:   after half of the first write() call's bytes (a torn .tmp),
///   rename:  after the .tmp is complete and fsync'ed, before the rename,
///   dirsync: after the rename, before the directory's fsync.
/// This makes "killed during a checkpoint write" deterministic instead of a
/// matter of timing. Unset (always, outside that test), it costs one getenv.
struct KillHook {
  long writer = 0; ///< 0: disarmed
  AtomicFileWriter::Stage stage = AtomicFileWriter::Stage::Write;
};

KillHook readKillHook() {
  KillHook hook;
  const char *text = std::getenv("RVNN_TEST_KILL_ATOMIC_WRITE");
  if (!text || !*text)
    return hook;
  char *end = nullptr;
  const long writer = std::strtol(text, &end, 10);
  const std::string stage = *end == ':' ? end + 1 : "";
  if (writer < 1 ||
      (stage != "write" && stage != "rename" && stage != "dirsync"))
    throw std::invalid_argument(
        std::string("RVNN_TEST_KILL_ATOMIC_WRITE='") + text +
        "': expected <n>:write|rename|dirsync with n >= 1");
  hook.writer = writer;
  hook.stage = stage == "write"    ? AtomicFileWriter::Stage::Write
               : stage == "rename" ? AtomicFileWriter::Stage::Rename
                                   : AtomicFileWriter::Stage::DirSync;
  return hook;
}

/// Whether the writer just created (the `ordinal`-th) is the one to kill.
std::optional<AtomicFileWriter::Stage> killStageFor(long ordinal) {
  static const KillHook hook = readKillHook();
  if (hook.writer != ordinal)
    return std::nullopt;
  return hook.stage;
}

long nextWriterOrdinal() {
  static long count = 0;
  return ++count;
}

} // namespace

AtomicFileWriter::AtomicFileWriter(std::string path)
    : path_(std::move(path)), tmpPath_(path_ + ".tmp"),
      killAt_(killStageFor(nextWriterOrdinal())) {
  fd_ =
      ::open(tmpPath_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd_ < 0)
    fail("cannot create " + tmpPath_);
  created_ = true;
}

AtomicFileWriter::~AtomicFileWriter() {
  if (fd_ >= 0)
    ::close(fd_);
  if (created_ && !committed_)
    ::unlink(tmpPath_.c_str());
}

void AtomicFileWriter::fail(const std::string &what) const {
  throw std::runtime_error("cannot write " + path_ + ": " + what + ": " +
                           std::strerror(errno));
}

void AtomicFileWriter::killIfAt(Stage stage) const {
  if (killAt_ == stage)
    ::raise(SIGKILL);
}

void AtomicFileWriter::write(const void *data, std::size_t size) {
  const char *bytes = static_cast<const char *>(data);
  if (killAt_ == Stage::Write) {
    writeAll(bytes, size / 2);
    killIfAt(Stage::Write);
  }
  writeAll(bytes, size);
}

void AtomicFileWriter::writeAll(const char *bytes, std::size_t size) {
  while (size > 0) {
    const ssize_t written = ::write(fd_, bytes, size);
    if (written < 0) {
      if (errno == EINTR)
        continue;
      fail("write to " + tmpPath_ + " failed");
    }
    bytes += written;
    size -= static_cast<std::size_t>(written);
  }
}

void AtomicFileWriter::commit() {
  // Data must be on disk before the rename makes it the file's content, or a
  // crash could leave a renamed but empty file.
  if (::fsync(fd_) != 0)
    fail("fsync of " + tmpPath_ + " failed");
  const int fd = fd_;
  fd_ = -1;
  if (::close(fd) != 0)
    fail("close of " + tmpPath_ + " failed");
  killIfAt(Stage::Rename);
  if (::rename(tmpPath_.c_str(), path_.c_str()) != 0)
    fail("rename of " + tmpPath_ + " failed");
  committed_ = true;
  killIfAt(Stage::DirSync);
  // Persist the rename itself.
  std::filesystem::path dir = std::filesystem::path(path_).parent_path();
  const int dirFd = ::open(dir.empty() ? "." : dir.c_str(),
                           O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dirFd < 0)
    fail("cannot open its directory");
  const int synced = ::fsync(dirFd);
  ::close(dirFd);
  if (synced != 0)
    fail("fsync of its directory failed");
}

void writeFileAtomically(const std::string &path, std::string_view content) {
  AtomicFileWriter writer(path);
  writer.write(content.data(), content.size());
  writer.commit();
}

} // namespace rvnn::runtime::train
