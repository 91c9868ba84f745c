#ifndef RVNN_RUNTIME_TRAIN_ATOMICFILE_H
#define RVNN_RUNTIME_TRAIN_ATOMICFILE_H

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace rvnn::runtime::train {

/// Replaces a file so that it holds either its previous content or the
/// complete new one, whatever fails or crashes in between: the data goes to
/// `<path>.tmp` in the same directory, is fsync'ed, and is renamed over
/// `path` (atomic within a filesystem), then the directory is fsync'ed.
/// Errors throw std::runtime_error naming the file and the system's reason.
/// A process killed at any moment leaves `path` whole (old or new) and at
/// most a stale `<path>.tmp`, which the next writer of `path` truncates.
class AtomicFileWriter {
public:
  /// Where the test-only kill hook (RVNN_TEST_KILL_ATOMIC_WRITE, see
  /// AtomicFile.cpp) stops the process.
  enum class Stage { Write, Rename, DirSync };

  explicit AtomicFileWriter(std::string path);
  /// Removes the temporary file unless commit() succeeded.
  ~AtomicFileWriter();
  AtomicFileWriter(const AtomicFileWriter &) = delete;
  AtomicFileWriter &operator=(const AtomicFileWriter &) = delete;

  void write(const void *data, std::size_t size);
  /// Makes the written data the file's content.
  void commit();

private:
  [[noreturn]] void fail(const std::string &what) const;
  void writeAll(const char *bytes, std::size_t size);
  void killIfAt(Stage stage) const;

  std::string path_;
  std::string tmpPath_;
  std::optional<Stage> killAt_;
  int fd_ = -1;
  bool created_ = false;
  bool committed_ = false;
};

/// Writes `content` to `path` with an AtomicFileWriter.
void writeFileAtomically(const std::string &path, std::string_view content);

} // namespace rvnn::runtime::train

#endif // RVNN_RUNTIME_TRAIN_ATOMICFILE_H
