// The test-only kill hook of AtomicFileWriter (RVNN_TEST_KILL_ATOMIC_WRITE,
// which test/Runtime/kill-resume.test drives): a process killed at each stage
// of a replacement leaves the file whole, old or new.
#include "rvnn/Runtime/Train/AtomicFile.h"

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "TempDir.h"

using namespace rvnn::runtime::train;
using rvnn::runtime::train::testing::readBytes;

namespace {

/// Runs two replacements of a file in a child process killed by the hook
/// at the second one's `stage`; returns the file's path.
std::string killSecondWrite(const std::string &stage) {
  // The child reruns the test from its start (threadsafe style, so that the
  // hook's environment variable is read afresh), hence a fixed directory.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("rvnn-kill-hook-" + stage);
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "a.txt").string();
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  ::setenv("RVNN_TEST_KILL_ATOMIC_WRITE", ("2:" + stage).c_str(), 1);
  EXPECT_EXIT(
      {
        writeFileAtomically(file, "first");
        writeFileAtomically(file, "second");
        std::exit(0);
      },
      ::testing::KilledBySignal(SIGKILL), "");
  ::unsetenv("RVNN_TEST_KILL_ATOMIC_WRITE");
  return file;
}

} // namespace

TEST(TrainCrashSafety, KilledMidWriteKeepsTheOldFile) {
  const std::string file = killSecondWrite("write");
  EXPECT_EQ(readBytes(file), "first");
  EXPECT_EQ(readBytes(file + ".tmp"), "sec"); // torn, and never renamed
  std::filesystem::remove_all(std::filesystem::path(file).parent_path());
}

TEST(TrainCrashSafety, KilledBeforeRenameKeepsTheOldFile) {
  const std::string file = killSecondWrite("rename");
  EXPECT_EQ(readBytes(file), "first");
  EXPECT_EQ(readBytes(file + ".tmp"), "second");
  // The next replacement takes the stale temporary file over.
  writeFileAtomically(file, "third");
  EXPECT_EQ(readBytes(file), "third");
  EXPECT_FALSE(std::filesystem::exists(file + ".tmp"));
  std::filesystem::remove_all(std::filesystem::path(file).parent_path());
}

TEST(TrainCrashSafety, KilledAfterRenameHasTheNewFile) {
  const std::string file = killSecondWrite("dirsync");
  EXPECT_EQ(readBytes(file), "second");
  EXPECT_FALSE(std::filesystem::exists(file + ".tmp"));
  std::filesystem::remove_all(std::filesystem::path(file).parent_path());
}
