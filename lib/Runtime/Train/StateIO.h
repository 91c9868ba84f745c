#ifndef RVNN_LIB_RUNTIME_TRAIN_STATEIO_H
#define RVNN_LIB_RUNTIME_TRAIN_STATEIO_H

#include <cstdint>
#include <string>
#include <string_view>

#include <torch/serialize/archive.h>
#include <torch/types.h>

namespace rvnn::runtime::train {

/// Reads the tensor `key` of `archive` as a state tensor of `param` (same
/// shape and dtype, moved to its device); throws std::runtime_error naming
/// `what` otherwise. Checkpoints are read to CPU, so a CUDA run's state moves
/// back here.
torch::Tensor readStateLike(torch::serialize::InputArchive &archive,
                            const std::string &key, const torch::Tensor &param,
                            const std::string &what);

/// Reads the integer `key` of `archive`; throws std::runtime_error naming
/// `what` when missing or not an integer.
int64_t readInt(torch::serialize::InputArchive &archive, const std::string &key,
                const std::string &what);

/// All bytes of `file`; std::runtime_error("cannot open: ...") or
/// ("read error") otherwise.
std::string readFileBytes(const std::string &file);

/// Checks the lengths in the pickles (*.pkl records) of a LibTorch zip
/// archive before LibTorch unpickles them. LibTorch 1.13's Unpickler
/// allocates and zero-fills a string or byte array of the length the file
/// claims before reading it, so a few corrupt bytes make it allocate up to
/// 4 GB (or abort on more); likewise it sizes its memo table by the index a
/// PUT names. Throws std::runtime_error naming the record when a length runs
/// past its record's end or a memo index exceeds the record's size;
/// c10::Error when `archive` is not a zip archive LibTorch reads. Stops at
/// an opcode LibTorch does not know (the unpickler rejects it itself).
void checkPickleLengths(std::string_view archive);

/// Checks the TorchScript declarations (code/*.py records) of a
/// torch::serialize archive, which LibTorch 1.13 compiles when it loads one:
/// its parser crashes on some malformed declarations (a SEGV in
/// ScriptTypeParser::parseClassConstant). The runtime's archives declare only
/// modules with typed attributes, so every line must be one LibTorch writes
/// for those; throws std::runtime_error naming the record and line otherwise.
void checkArchiveCode(std::string_view archive);

/// "[2, 3] float" for error messages.
std::string describeTensor(const torch::Tensor &tensor);

} // namespace rvnn::runtime::train

#endif // RVNN_LIB_RUNTIME_TRAIN_STATEIO_H
