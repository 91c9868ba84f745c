#include "StateIO.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <memory>
#include <optional>
#include <regex>
#include <sstream>
#include <stdexcept>

#include <caffe2/serialize/inline_container.h>

namespace rvnn::runtime::train {

std::string describeTensor(const torch::Tensor &tensor) {
  std::ostringstream text;
  text << tensor.sizes() << " " << tensor.dtype();
  return text.str();
}

torch::Tensor readStateLike(torch::serialize::InputArchive &archive,
                            const std::string &key, const torch::Tensor &param,
                            const std::string &what) {
  torch::Tensor value;
  if (!archive.try_read(key, value, /*is_buffer=*/true))
    throw std::runtime_error(what + " is missing");
  if (value.sizes() != param.sizes() || value.dtype() != param.dtype())
    throw std::runtime_error(what + " is " + describeTensor(value) +
                             ", the parameter is " + describeTensor(param));
  return value.to(param.device());
}

std::string readFileBytes(const std::string &file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw std::runtime_error(std::string("cannot open: ") +
                             std::strerror(errno));
  std::string bytes{std::istreambuf_iterator<char>(in),
                    std::istreambuf_iterator<char>()};
  if (in.bad())
    throw std::runtime_error("read error");
  return bytes;
}

namespace {

/// An archive in memory, for PyTorchStreamReader.
class BytesAdapter : public caffe2::serialize::ReadAdapterInterface {
public:
  explicit BytesAdapter(std::string_view bytes) : bytes(bytes) {}
  size_t size() const override { return bytes.size(); }
  size_t read(uint64_t pos, void *buf, size_t n,
              const char * /*what*/) const override {
    if (pos >= bytes.size())
      return 0;
    n = std::min<uint64_t>(n, bytes.size() - pos);
    std::memcpy(buf, bytes.data() + pos, n);
    return n;
  }

private:
  std::string_view bytes;
};

/// Walks the opcodes of one pickle (the subset LibTorch's Unpickler reads,
/// torch/csrc/jit/serialization/pickler.h) and checks every length prefix.
void checkPickle(const std::string &record, std::string_view pickle) {
  auto fail = [&](size_t at, char op, uint64_t length, size_t left) {
    throw std::runtime_error("record '" + record + "': pickle opcode " +
                             std::to_string(static_cast<unsigned char>(op)) +
                             " at byte " + std::to_string(at) + " claims " +
                             std::to_string(length) + " bytes, more than the " +
                             std::to_string(left) + " left (corrupt file)");
  };
  // Little-endian unsigned integer of `width` bytes at `at`; nullopt past
  // the end (the unpickler reports a truncated pickle itself).
  auto uint = [&](size_t at, size_t width) -> std::optional<uint64_t> {
    if (at + width > pickle.size())
      return std::nullopt;
    uint64_t value = 0;
    for (size_t i = width; i-- > 0;)
      value = (value << 8) | static_cast<unsigned char>(pickle[at + i]);
    return value;
  };
  // Opcodes by argument: none, a fixed size (kFixed[i]: i + 1 bytes), one
  // or two lines, or a length of 1, 4 or 8 bytes and that many bytes.
  static constexpr std::string_view kNone =
      "(012NQRabd}el]ost)u\x81\x85\x86\x87\x88\x89\x8f\x90\x91\x92\x93\x94";
  static constexpr std::string_view kFixed[] = {
      "Khq\x80\x82", "M\x83", "", "Jjr\x84", "", "", "", "G\x95"};
  static constexpr std::string_view kLine = "FILPSVgp", kTwoLines = "ci";
  static constexpr std::string_view kLength1 = "UC\x8c\x8a",
                                    kLength4 = "TXB\x8b", kLength8 = "\x8d\x8e";
  auto in = [](std::string_view set, char op) {
    return set.find(op) != set.npos;
  };
  // LibTorch also sizes its memo table by the index a PUT names: an index
  // needs at least one object per entry before it, so it is below the
  // record's size.
  auto checkMemo = [&](size_t at, char op, std::optional<uint64_t> index) {
    if (index && *index >= pickle.size())
      throw std::runtime_error(
          "record '" + record + "': pickle opcode " +
          std::to_string(static_cast<unsigned char>(op)) + " at byte " +
          std::to_string(at) + " stores memo entry " + std::to_string(*index) +
          ", more than the record's " + std::to_string(pickle.size()) +
          " bytes hold (corrupt file)");
  };
  for (size_t at = 0; at < pickle.size();) {
    const char op = pickle[at];
    size_t next = at + 1;
    size_t width = 0;
    if (in(kNone, op)) {
      // nothing to skip
    } else if (in(kLine, op) || in(kTwoLines, op)) {
      for (int lines = in(kTwoLines, op) ? 2 : 1; lines > 0; --lines) {
        const size_t end = pickle.find('\n', next);
        if (end == pickle.npos)
          return;
        if (op == 'p') { // PUT: a decimal memo index
          const std::string_view digits = pickle.substr(next, end - next);
          uint64_t index = 0;
          bool number = !digits.empty() && digits.size() <= 18;
          for (char c : digits) {
            number = number && c >= '0' && c <= '9';
            index = index * 10 + static_cast<uint64_t>(c - '0');
          }
          checkMemo(at, op,
                    number ? std::optional<uint64_t>(index) : std::nullopt);
        }
        next = end + 1;
      }
    } else if ((width = in(kLength1, op)   ? 1
                        : in(kLength4, op) ? 4
                        : in(kLength8, op) ? 8
                                           : 0)) {
      const std::optional<uint64_t> length = uint(next, width);
      if (!length)
        return;
      next += width;
      if (*length > pickle.size() - next)
        fail(at, op, *length, pickle.size() - next);
      next += *length;
    } else {
      size_t size = 0;
      for (size_t i = 0; i < std::size(kFixed) && !size; ++i)
        if (in(kFixed[i], op))
          size = i + 1;
      if (!size) // STOP, or an opcode LibTorch rejects
        return;
      if (op == 'r') // LONG_BINPUT
        checkMemo(at, op, uint(next, 4));
      next += size;
    }
    at = next;
  }
}

/// Calls `check(name, bytes)` for every record of `archive` whose name ends
/// in `suffix`.
template <typename Check>
void forEachRecord(std::string_view archive, std::string_view suffix,
                   Check check) {
  caffe2::serialize::PyTorchStreamReader reader(
      std::make_shared<BytesAdapter>(archive));
  for (const std::string &name : reader.getAllRecords()) {
    if (name.size() < suffix.size() ||
        name.compare(name.size() - suffix.size(), suffix.size(), suffix) != 0)
      continue;
    auto [data, size] = reader.getRecord(name);
    check(name, std::string_view(static_cast<const char *>(data.get()), size));
  }
}

} // namespace

void checkPickleLengths(std::string_view archive) {
  forEachRecord(archive, ".pkl", checkPickle);
}

namespace {

/// `  __buffers__ = ["a", "b/0", ]` or the same of `__parameters__`,
/// checked without std::regex: the line has one entry per tensor, too long
/// for libstdc++'s recursive matcher.
bool isTensorList(std::string_view text) {
  std::string_view rest;
  bool list = false;
  for (std::string_view head : {"  __buffers__ = [", "  __parameters__ = ["})
    if (text.substr(0, head.size()) == head && text.back() == ']') {
      rest = text.substr(head.size(), text.size() - head.size() - 1);
      list = true;
    }
  if (!list)
    return false;
  while (!rest.empty()) {
    const size_t end = rest.find("\", ");
    if (rest[0] != '"' || end == rest.npos || end < 2)
      return false;
    for (char c : rest.substr(1, end - 1))
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' &&
          c != '/' && c != '.')
        return false;
    rest.remove_prefix(end + 3);
  }
  return true;
}

} // namespace

void checkArchiveCode(std::string_view archive) {
  // What LibTorch writes for an archive's modules: class headers, the
  // parameter and buffer lists, and typed attributes.
  static const std::regex line(
      R"(class Module\(Module\):|)"
      R"(  __annotations__ = \[\]|)"
      R"(  (__annotations__\["[\w/.]+"\] =|\w+ :) )"
      R"((Tensor|int|float|str|bool|__torch__\.___torch_mangle_\d+\.Module|)"
      R"(Tuple\[(int|float|bool)(, (int|float|bool))*\]))");
  constexpr size_t kMaxLine = 1000; // but the tensor lists
  forEachRecord(
      archive, ".py", [](const std::string &name, std::string_view code) {
        size_t number = 0;
        for (size_t start = 0; start < code.size(); ++number) {
          const size_t end = std::min(code.find('\n', start), code.size());
          const std::string_view text = code.substr(start, end - start);
          if (!text.empty() && !isTensorList(text) &&
              (text.size() > kMaxLine ||
               !std::regex_match(text.begin(), text.end(), line)))
            throw std::runtime_error(
                "record '" + name + "' line " + std::to_string(number + 1) +
                " is not a module declaration this runtime writes (corrupt "
                "file?)");
          start = end + 1;
        }
      });
}

int64_t readInt(torch::serialize::InputArchive &archive, const std::string &key,
                const std::string &what) {
  c10::IValue value;
  if (!archive.try_read(key, value) || !value.isInt())
    throw std::runtime_error(what + " is missing");
  return value.toInt();
}

} // namespace rvnn::runtime::train
