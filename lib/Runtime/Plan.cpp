#include "rvnn/Runtime/Plan.h"
#include "rvnn/Dialect/Exec/ExecContract.h"
#include "rvnn/Dialect/Exec/HostCpu.h"
#include "rvnn/Runtime/KernelLibrary.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <string_view>
#include <unordered_set>

#include <openssl/evp.h>

namespace rvnn::runtime {
namespace {

using nlohmann::json;

/// Reads fields of one JSON object, naming `file` and the object's path in
/// every error.
class Reader {
public:
  Reader(const std::string &file, const json &node, std::string path)
      : file(file), node(node), path(std::move(path)) {}

  [[noreturn]] void fail(const std::string &what) const {
    throw PlanError(file + ": " + (path.empty() ? "" : path + ": ") + what);
  }

  const json &at(const std::string &key, json::value_t kind) const {
    if (!node.is_object())
      fail("expected an object");
    auto it = node.find(key);
    if (it == node.end())
      fail("missing field '" + key + "'");
    bool ok = kind == json::value_t::number_integer
                  ? it->is_number_integer()
                  : (kind == json::value_t::number_float ? it->is_number()
                                                         : it->type() == kind);
    if (!ok)
      fail("field '" + key + "' has the wrong type");
    return *it;
  }
  std::string string(const std::string &key) const {
    return at(key, json::value_t::string).get<std::string>();
  }
  int64_t integer(const std::string &key) const {
    return at(key, json::value_t::number_integer).get<int64_t>();
  }
  const json &array(const std::string &key) const {
    return at(key, json::value_t::array);
  }
  Reader child(const json &value, const std::string &name) const {
    return Reader(file, value, path.empty() ? name : path + "." + name);
  }

  const std::string &file;
  const json &node;
  std::string path;
};

json parseJson(const std::string &file, const std::string &text) {
  try {
    return json::parse(text);
  } catch (const json::exception &error) {
    // parse_error, or out_of_range for a number beyond double.
    throw PlanError(file + ": invalid JSON: " + error.what());
  }
}

std::string readFile(const std::filesystem::path &file) {
  std::ifstream in(file, std::ios::binary);
  if (!in)
    throw PlanError(file.string() + ": cannot open (is this a compiled-model "
                                    "directory? run `rvnn-run compile` first)");
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void checkHeader(const Reader &reader, std::string_view format) {
  if (reader.string("format") != format)
    reader.fail("format is '" + reader.string("format") + "', expected '" +
                std::string(format) + "'");
  int64_t version = reader.integer("version");
  if (version != contract::kFormatVersion)
    reader.fail("format version " + std::to_string(version) +
                " is not supported by this runtime (reads version " +
                std::to_string(contract::kFormatVersion) +
                "); recompile the model with this release");
}

/// Checks one entry of the manifest's "files" against the directory and
/// returns the file's contents.
std::string readListedFile(const Reader &entry,
                           const std::filesystem::path &directory) {
  std::string name = entry.string("path");
  std::filesystem::path path(name);
  bool inside = !name.empty() && path.is_relative();
  for (const std::filesystem::path &part : path)
    inside = inside && part != "..";
  if (!inside)
    entry.fail(name + ": path must be relative and inside the directory");
  std::string expected = entry.string("sha256");
  if (expected.size() != 64 ||
      expected.find_first_not_of("0123456789abcdef") != std::string::npos)
    entry.fail(name + ": sha256 must be 64 lowercase hex digits");
  std::filesystem::path file = directory / path;
  if (!std::filesystem::is_regular_file(file))
    entry.fail(name + ": listed but missing from the directory");
  std::string bytes = readFile(file);
  if (sha256Hex(bytes) != expected)
    entry.fail(name + ": SHA-256 mismatch (the file changed after "
                      "compilation; recompile the model)");
  return bytes;
}

ValueType readType(const Reader &reader) {
  ValueType type;
  type.dtype = reader.string("dtype");
  static const char *known[] = {"f32", "f64", "i64", "i1", "index"};
  if (std::find(std::begin(known), std::end(known), type.dtype) ==
      std::end(known))
    reader.fail("unknown dtype '" + type.dtype + "'");
  for (const json &dim : reader.array("shape")) {
    if (!dim.is_number_integer() || dim.get<int64_t>() < -1)
      reader.fail("shape entries must be integers >= -1");
    type.shape.push_back(dim.get<int64_t>());
  }
  type.tensor = reader.at("tensor", json::value_t::boolean).get<bool>();
  return type;
}

void readValues(const Reader &reader, const std::string &key,
                std::vector<int64_t> &ids, std::vector<ValueType> &types,
                int64_t &numValues) {
  const json &list = reader.array(key);
  for (size_t i = 0; i < list.size(); ++i) {
    Reader value = reader.child(list[i], key + "[" + std::to_string(i) + "]");
    int64_t id = value.integer("id");
    if (id != numValues)
      value.fail("value ids must be numbered in definition order");
    ++numValues;
    ids.push_back(id);
    types.push_back(
        readType(value.child(value.at("type", json::value_t::object), "type")));
  }
}

PlanRegion readRegion(const Reader &reader, int64_t &numValues);

PlanOp readOp(const Reader &reader, int64_t &numValues) {
  PlanOp op;
  op.name = reader.string("op");
  op.loc = reader.string("loc");
  if (!contract::lookupOp(op.name))
    throw PlanError(reader.file + ": " + op.where() +
                    ": op is outside the execution contract");
  for (const json &operand : reader.array("operands")) {
    if (!operand.is_number_integer() || operand.get<int64_t>() < 0 ||
        operand.get<int64_t>() >= numValues)
      reader.fail(op.name + ": operand refers to an undefined value");
    op.operands.push_back(operand.get<int64_t>());
  }
  op.setAttrs(reader.at("attrs", json::value_t::object));
  const json &regions = reader.array("regions");
  for (size_t i = 0; i < regions.size(); ++i)
    op.regions.push_back(readRegion(
        reader.child(regions[i], "regions[" + std::to_string(i) + "]"),
        numValues));
  readValues(reader, "results", op.results, op.resultTypes, numValues);
  return op;
}

/// Adds the values the ops of `regions` (and of the regions in them) read.
void addNestedReads(const std::vector<PlanRegion> &regions,
                    std::unordered_set<int64_t> &reads) {
  for (const PlanRegion &region : regions)
    for (const PlanOp &op : region.body) {
      reads.insert(op.operands.begin(), op.operands.end());
      addNestedReads(op.regions, reads);
    }
}

/// Sets PlanOp::lastUses for the ops of `region`, walking it backwards.
void markLastUses(PlanRegion &region) {
  std::unordered_set<int64_t> defined, readLater;
  for (const PlanOp &op : region.body)
    defined.insert(op.results.begin(), op.results.end());
  for (auto op = region.body.rbegin(); op != region.body.rend(); ++op) {
    std::unordered_set<int64_t> nested;
    addNestedReads(op->regions, nested);
    op->lastUses.assign(op->operands.size(), false);
    for (size_t i = 0; i < op->operands.size(); ++i) {
      const int64_t id = op->operands[i];
      op->lastUses[i] =
          defined.count(id) && !readLater.count(id) && !nested.count(id) &&
          std::count(op->operands.begin(), op->operands.end(), id) == 1;
    }
    readLater.insert(op->operands.begin(), op->operands.end());
    readLater.insert(nested.begin(), nested.end());
  }
}

PlanRegion readRegion(const Reader &reader, int64_t &numValues) {
  PlanRegion region;
  readValues(reader, "args", region.args, region.argTypes, numValues);
  const json &body = reader.array("body");
  for (size_t i = 0; i < body.size(); ++i)
    region.body.push_back(readOp(
        reader.child(body[i], "body[" + std::to_string(i) + "]"), numValues));
  markLastUses(region);
  return region;
}

PlanFunction readFunction(const Reader &reader) {
  PlanFunction function;
  function.name = reader.string("name");
  function.body = readRegion(reader, function.numValues);
  for (const json &type : reader.array("result_types"))
    function.resultTypes.push_back(
        readType(reader.child(type, "result_types")));
  return function;
}

/// Parameters are allocated, with optimiser and checkpoint copies, as soon as
/// the model loads: refuse sizes no machine holds before the allocator aborts.
constexpr int64_t kMaxParameterElements = int64_t{1} << 30;

ParamSpec readParam(const Reader &reader) {
  ParamSpec param;
  param.name = reader.string("sym_name");
  param.type =
      readType(reader.child(reader.at("type", json::value_t::object), "type"));
  int64_t elements = 1;
  for (int64_t dim : param.type.shape) {
    if (dim < 0)
      reader.fail("parameter '" + param.name + "' has a dynamic shape");
    if (dim > 0 && elements > kMaxParameterElements / dim)
      reader.fail("parameter '" + param.name + "' has more than " +
                  std::to_string(kMaxParameterElements) +
                  " elements, the limit for one parameter "
                  "(kMaxParameterElements)");
    elements *= dim;
  }
  param.init = reader.string("init");
  if (reader.node.contains("scale"))
    param.scale = reader.at("scale", json::value_t::number_float).get<double>();
  return param;
}

/// Collects the `kernel` of every rvnn_exec.dispatch in `region`.
void collectDispatchKernels(const std::string &file, const PlanRegion &region,
                            std::set<std::string> &kernels) {
  namespace exec = contract::ops;
  for (const PlanOp &op : region.body) {
    if (op.name == exec::DispatchOp::name) {
      auto it = op.attrs.find(std::string(exec::DispatchOp::attr::kernel));
      if (it == op.attrs.end() || !it->is_string() ||
          it->get<std::string>().empty())
        throw PlanError(file + ": " + op.where() + ": missing attribute '" +
                        std::string(exec::DispatchOp::attr::kernel) + "'");
      kernels.insert(it->get<std::string>());
    }
    for (const PlanRegion &nested : op.regions)
      collectDispatchKernels(file, nested, kernels);
  }
}

/// The file that field `key` of `reader` names; it must be listed in 'files'
/// with role `role`, so its SHA-256 was checked.
std::string listedFile(const Reader &reader, const std::string &key,
                       const std::string &role,
                       const std::map<std::string, std::string> &roles) {
  std::string file = reader.string(key);
  auto it = roles.find(file);
  if (it == roles.end() || it->second != role)
    reader.fail(key + " '" + file + "' is not listed in 'files' with role '" +
                role + "'");
  return file;
}

/// Reads the manifest's `kernels.cuda` (the kernels' CUDA code): its ABI and
/// block must be this runtime's, and every file it names a listed one.
std::shared_ptr<const CudaKernelCode>
readCudaKernelCode(const Reader &cuda,
                   const std::map<std::string, std::string> &roles,
                   const std::string &directory) {
  if (cuda.string("abi") != kCudaKernelAbi)
    cuda.fail("CUDA kernel ABI '" + cuda.string("abi") +
              "' is not supported by this runtime (launches '" +
              std::string(kCudaKernelAbi) +
              "'); recompile the model with this release");
  const json &block = cuda.array("block");
  if (block != json::array({kCudaBlockSize, 1, 1}))
    cuda.fail("block " + block.dump() + " is not the ABI's [" +
              std::to_string(kCudaBlockSize) + ", 1, 1]");
  auto code = std::make_shared<CudaKernelCode>();
  auto path = [&](const Reader &arch, const std::string &role) {
    return (std::filesystem::path(directory) /
            listedFile(arch, role, role, roles))
        .string();
  };
  const json &archs = cuda.array("archs");
  for (size_t i = 0; i < archs.size(); ++i) {
    Reader arch = cuda.child(archs[i], "archs[" + std::to_string(i) + "]");
    // An architecture has no cubin where ptxas was not found.
    code->images.push_back(
        {arch.string("arch"), path(arch, "ptx"),
         arch.node.contains("cubin") ? path(arch, "cubin") : ""});
  }
  // The PTX entries: the library's less those of `cpu_only` kernels.
  for (const json &symbol : cuda.array("symbols")) {
    if (!symbol.is_string())
      cuda.fail("symbols must be strings");
    code->entries.insert(symbol.get<std::string>());
  }
  return code;
}

/// Reads the manifest's `kernels` object (the generated kernel library) into
/// `plan` and, with `load`, loads the library. `roles` maps each listed
/// file's path to its role; the library must be one of them with role
/// `kernels`, so its SHA-256 was checked.
/// Refuses a kernel library of an x86-64 level this CPU does not run: its
/// first AVX-512 instruction would kill the process.
void checkCpuLevel(const Reader &kernels) {
  const std::string cpu = kernels.string("cpu");
  if (contract::hostRunsCpuLevel(cpu))
    return;
  const auto &levels = contract::kKernelCpuLevels;
  if (std::find(levels.begin(), levels.end(), cpu) == levels.end())
    kernels.fail("cpu: '" + cpu +
                 "' is not an x86-64 level this runtime knows; recompile the "
                 "model (rvnn-run compile)");
  kernels.fail("cpu: the kernels were compiled for " + cpu +
               ", which this CPU does not run; recompile the model on this "
               "machine, or with --cpu " +
               std::string(contract::hostCpuLevel()) +
               " for the machines it is to run on");
}

void readKernels(const Reader &manifest,
                 const std::map<std::string, std::string> &roles, bool load,
                 Plan &plan) {
  if (!manifest.node.contains("kernels"))
    return;
  Reader kernels =
      manifest.child(manifest.at("kernels", json::value_t::object), "kernels");
  std::string library = listedFile(kernels, "library", "kernels", roles);
  plan.kernelLibraryFile = library;
  std::shared_ptr<const CudaKernelCode> cuda;
  if (kernels.node.contains("cuda"))
    cuda = readCudaKernelCode(
        kernels.child(kernels.at("cuda", json::value_t::object), "cuda"), roles,
        plan.directory);
  if (!load)
    return;
  checkCpuLevel(kernels);
  std::string abi = kernels.string("abi");
  std::vector<std::string> symbols;
  for (const json &symbol : kernels.array("symbols")) {
    if (!symbol.is_string())
      kernels.fail("symbols must be strings");
    symbols.push_back(symbol.get<std::string>());
  }
  plan.kernels = std::make_shared<const KernelLibrary>(
      (std::filesystem::path(plan.directory) / library).string(), abi, symbols,
      plan.dispatchKernels, std::move(cuda));
}

} // namespace

std::string sha256Hex(const std::string &bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest, &length, EVP_sha256(),
                 nullptr) != 1)
    throw PlanError("OpenSSL failed to compute a SHA-256");
  static const char hex[] = "0123456789abcdef";
  std::string text;
  for (unsigned int i = 0; i < length; ++i) {
    text += hex[digest[i] >> 4];
    text += hex[digest[i] & 0xf];
  }
  return text;
}

void PlanOp::setAttrs(json attributes) {
  attrs = std::move(attributes);
  intArrays.clear();
  for (const auto &[attrName, value] : attrs.items())
    if (value.is_array() &&
        std::all_of(value.begin(), value.end(),
                    [](const json &v) { return v.is_number_integer(); }))
      intArrays.emplace_back(attrName, value.get<std::vector<int64_t>>());
}

std::string PlanOp::where() const {
  return (loc.empty() ? std::string() : loc + ": ") + name;
}

const PlanFunction &Plan::function(const std::string &name) const {
  auto it = functions.find(name);
  if (it == functions.end())
    throw PlanError(directory + "/plan.json: the model has no function '@" +
                    name + "'");
  return it->second;
}

Plan loadPlan(const std::string &directory, bool loadKernels) {
  std::string manifestFile = directory + "/manifest.json";
  json manifest = parseJson(manifestFile, readFile(manifestFile));
  Reader manifestReader(manifestFile, manifest, "");
  checkHeader(manifestReader, contract::kModelFormat);

  std::string planFile, planText;
  std::map<std::string, std::string> roles;
  int numPlans = 0;
  const json &files = manifestReader.array("files");
  for (size_t i = 0; i < files.size(); ++i) {
    Reader entry =
        manifestReader.child(files[i], "files[" + std::to_string(i) + "]");
    std::string bytes = readListedFile(entry, directory);
    std::string role = entry.string("role");
    static const char *known[] = {"plan", "kernels", "ptx", "cubin"};
    if (std::find(std::begin(known), std::end(known), role) == std::end(known))
      entry.fail("unknown role '" + role +
                 "' (expected plan, kernels, ptx or cubin)");
    roles[entry.string("path")] = role;
    if (entry.string("role") == "plan") {
      ++numPlans;
      planFile = directory + "/" + entry.string("path");
      planText = std::move(bytes);
    }
  }
  if (numPlans != 1)
    manifestReader.fail("files must list exactly one file with role 'plan' "
                        "(found " +
                        std::to_string(numPlans) + ")");

  json root = parseJson(planFile, planText);
  Reader reader(planFile, root, "");
  checkHeader(reader, contract::kPlanFormat);

  Plan plan;
  plan.directory = directory;
  const json &params = reader.array("params");
  for (size_t i = 0; i < params.size(); ++i)
    plan.params.push_back(readParam(
        reader.child(params[i], "params[" + std::to_string(i) + "]")));
  const json &functions = reader.array("functions");
  for (size_t i = 0; i < functions.size(); ++i) {
    PlanFunction function = readFunction(
        reader.child(functions[i], "functions[" + std::to_string(i) + "]"));
    std::string name = function.name;
    plan.functions.emplace(name, std::move(function));
  }
  std::set<std::string> kernels;
  for (const auto &entry : plan.functions)
    collectDispatchKernels(planFile, entry.second.body, kernels);
  plan.dispatchKernels.assign(kernels.begin(), kernels.end());
  readKernels(manifestReader, roles, loadKernels, plan);
  return plan;
}

} // namespace rvnn::runtime
