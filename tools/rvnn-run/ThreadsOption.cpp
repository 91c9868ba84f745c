#include "ThreadsOption.h"

#include "rvnn/Runtime/Threads.h"

namespace rvnn::cli {

void addThreadsOption(OptionParser &parser, unsigned &target) {
  parser.add("--threads", "N",
             "intra-op threads, LibTorch's and OpenBLAS's (0: their "
             "defaults;\nOpenBLAS's is every core)",
             target);
}

void applyThreadsOption(unsigned threads) {
  if (threads)
    runtime::setIntraOpThreads(static_cast<int>(threads));
}

} // namespace rvnn::cli
