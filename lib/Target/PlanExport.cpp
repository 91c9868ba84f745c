// MLIR module -> compiled-model plan (JSON). The format is documented in
// docs/compiled-model-format.md; the runtime validates it on load.
#include "rvnn/Target/PlanExport.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Diagnostics.h"
#include "rvnn/Codegen/CudaKernels.h"
#include "rvnn/Codegen/KernelLibrary.h"
#include "rvnn/Codegen/OutputFile.h"
#include "rvnn/Dialect/Exec/ExecContract.h"
#include "rvnn/Dialect/Exec/IR/ExecDialect.h"
#include "rvnn/Dialect/Exec/IR/ExecOps.h"
#include "rvnn/Dialect/Exec/Transforms/Passes.h"
#include "rvnn/Version.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;
namespace json = llvm::json;
namespace contract = ::rvnn::contract;

namespace {

std::optional<std::string> dtypeName(Type type) {
  if (type.isF32())
    return "f32";
  if (type.isF64())
    return "f64";
  if (type.isInteger(64))
    return "i64";
  if (type.isInteger(1))
    return "i1";
  if (type.isIndex())
    return "index";
  return std::nullopt;
}

std::string printed(Attribute attr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

/// Numbers SSA values in definition order and encodes ops, types and
/// attributes. One instance per function.
class PlanWriter {
public:
  FailureOr<json::Value> type(Operation *where, Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    Type element = tensor ? tensor.getElementType() : type;
    std::optional<std::string> dtype = dtypeName(element);
    if (!dtype)
      return where->emitError("plan export: unsupported type ") << type;
    json::Array shape;
    if (tensor)
      for (int64_t dim : tensor.getShape())
        shape.push_back(ShapedType::isDynamic(dim) ? int64_t(-1) : dim);
    return json::Value(json::Object{{"dtype", *dtype},
                                    {"shape", std::move(shape)},
                                    {"tensor", bool(tensor)}});
  }

  FailureOr<json::Value> attribute(Operation *where, Attribute attr) {
    if (isa<UnitAttr>(attr))
      return json::Value(true);
    if (auto b = dyn_cast<BoolAttr>(attr))
      return json::Value(b.getValue());
    if (auto i = dyn_cast<IntegerAttr>(attr))
      return json::Value(i.getValue().getSExtValue());
    if (auto f = dyn_cast<FloatAttr>(attr))
      return json::Value(f.getValueAsDouble());
    if (auto s = dyn_cast<StringAttr>(attr))
      return json::Value(s.getValue().str());
    if (auto sym = dyn_cast<FlatSymbolRefAttr>(attr))
      return json::Value(sym.getValue().str());
    if (auto array = dyn_cast<DenseI64ArrayAttr>(attr))
      return json::Value(json::Array(array.asArrayRef()));
    if (auto array = dyn_cast<DenseI32ArrayAttr>(attr))
      return json::Value(json::Array(array.asArrayRef()));
    if (auto array = dyn_cast<ArrayAttr>(attr)) {
      json::Array elements;
      for (Attribute element : array) {
        FailureOr<json::Value> value = attribute(where, element);
        if (failed(value))
          return failure();
        elements.push_back(std::move(*value));
      }
      return json::Value(std::move(elements));
    }
    if (auto t = dyn_cast<TypeAttr>(attr))
      return type(where, t.getValue());
    if (auto dense = dyn_cast<DenseFPElementsAttr>(attr)) {
      json::Array values;
      for (const APFloat &v : dense.getValues<APFloat>())
        values.push_back(v.convertToDouble());
      return json::Value(json::Object{{"values", std::move(values)},
                                      {"type", *type(where, dense.getType())}});
    }
    if (auto dense = dyn_cast<DenseIntElementsAttr>(attr)) {
      json::Array values;
      for (const APInt &v : dense.getValues<APInt>())
        values.push_back(v.getSExtValue());
      return json::Value(json::Object{{"values", std::move(values)},
                                      {"type", *type(where, dense.getType())}});
    }
    // Enum attributes print as `#dialect.mnemonic<keyword>`: the plan
    // carries the keyword, which is what the runtime dispatches on. Any
    // other attribute travels as its MLIR text.
    std::string text = printed(attr);
    size_t open = text.find('<');
    if (text.rfind("#", 0) == 0 && open != std::string::npos &&
        text.back() == '>')
      return json::Value(text.substr(open + 1, text.size() - open - 2));
    return json::Value(text);
  }

  FailureOr<json::Array> values(Operation *where, ValueRange range,
                                bool define) {
    json::Array out;
    for (Value value : range) {
      if (define) {
        int64_t id = ids.size();
        ids[value] = id;
        FailureOr<json::Value> t = type(where, value.getType());
        if (failed(t))
          return failure();
        out.push_back(json::Object{{"id", id}, {"type", std::move(*t)}});
      } else {
        auto it = ids.find(value);
        if (it == ids.end())
          return where->emitError("plan export: operand defined outside the "
                                  "function");
        out.push_back(it->second);
      }
    }
    return out;
  }

  FailureOr<json::Object> region(Operation *where, Region &region) {
    if (!region.hasOneBlock())
      return where->emitError("plan export: regions must have one block");
    Block &block = region.front();
    FailureOr<json::Array> args = values(where, block.getArguments(), true);
    if (failed(args))
      return failure();
    json::Array body;
    for (Operation &op : block) {
      FailureOr<json::Object> encoded = operation(&op);
      if (failed(encoded))
        return failure();
      body.push_back(std::move(*encoded));
    }
    return json::Object{{"args", std::move(*args)}, {"body", std::move(body)}};
  }

  FailureOr<json::Object> operation(Operation *op) {
    FailureOr<json::Array> operands = values(op, op->getOperands(), false);
    if (failed(operands))
      return failure();
    json::Object attrs;
    // Defaults are spelled out so the runtime never guesses them.
    NamedAttrList attrList(op->getAttrDictionary());
    if (std::optional<RegisteredOperationName> info = op->getRegisteredInfo())
      info->populateDefaultAttrs(attrList);
    for (const NamedAttribute &named : attrList) {
      FailureOr<json::Value> value = attribute(op, named.getValue());
      if (failed(value))
        return failure();
      attrs[named.getName().getValue()] = std::move(*value);
    }
    json::Array regions;
    for (Region &r : op->getRegions()) {
      FailureOr<json::Object> encoded = region(op, r);
      if (failed(encoded))
        return failure();
      regions.push_back(std::move(*encoded));
    }
    FailureOr<json::Array> results = values(op, op->getResults(), true);
    if (failed(results))
      return failure();
    return json::Object{{"op", op->getName().getStringRef().str()},
                        {"operands", std::move(*operands)},
                        {"results", std::move(*results)},
                        {"attrs", std::move(attrs)},
                        {"regions", std::move(regions)},
                        {"loc", location(op->getLoc())}};
  }

  static std::string location(Location loc) {
    if (auto file = dyn_cast<FileLineColLoc>(loc))
      return (file.getFilename().getValue() + ":" + Twine(file.getLine()) +
              ":" + Twine(file.getColumn()))
          .str();
    if (auto fused = dyn_cast<FusedLoc>(loc))
      for (Location inner : fused.getLocations())
        if (std::string text = location(inner); !text.empty())
          return text;
    if (auto callSite = dyn_cast<CallSiteLoc>(loc))
      return location(callSite.getCaller());
    return "";
  }

private:
  llvm::DenseMap<Value, int64_t> ids;
};

FailureOr<json::Object> exportFunction(mlir::rvnn::exec::FuncOp func) {
  PlanWriter writer;
  FailureOr<json::Object> body = writer.region(func, func.getBody());
  if (failed(body))
    return failure();
  json::Array resultTypes;
  for (Type type : func.getResultTypes()) {
    FailureOr<json::Value> t = writer.type(func, type);
    if (failed(t))
      return failure();
    resultTypes.push_back(std::move(*t));
  }
  (*body)["name"] = func.getSymName().str();
  (*body)["result_types"] = std::move(resultTypes);
  return body;
}

/// The nested module holding the kernel IR (rvnn_exec.kernels), if any.
ModuleOp kernelsModule(ModuleOp module) {
  for (auto nested : module.getOps<ModuleOp>())
    if (nested->hasAttr(mlir::rvnn::exec::ExecDialect::kKernelsAttrName))
      return nested;
  return nullptr;
}

std::string sha256Hex(StringRef text) {
  llvm::SHA256 hash;
  hash.update(text);
  return llvm::toHex(hash.final(), /*LowerCase=*/true);
}

} // namespace

FailureOr<json::Value> mlir::rvnn::exportPlan(ModuleOp module) {
  if (failed(exec::checkContract(module)))
    return failure();
  json::Array params;
  json::Array functions;
  PlanWriter paramWriter;
  for (Operation &op : module.getBody()->getOperations()) {
    if (isa<mlir::rvnn::exec::ParamOp>(op)) {
      json::Object param;
      for (NamedAttribute named : op.getAttrDictionary()) {
        FailureOr<json::Value> value =
            paramWriter.attribute(&op, named.getValue());
        if (failed(value))
          return failure();
        param[named.getName().getValue()] = std::move(*value);
      }
      params.push_back(std::move(param));
    } else if (auto func = dyn_cast<mlir::rvnn::exec::FuncOp>(op)) {
      FailureOr<json::Object> encoded = exportFunction(func);
      if (failed(encoded))
        return failure();
      functions.push_back(std::move(*encoded));
    } else if (isa<ModuleOp>(op) &&
               op.hasAttr(mlir::rvnn::exec::ExecDialect::kKernelsAttrName)) {
      // Kernel IR: compiled into the kernel library, not part of the plan.
      continue;
    } else {
      return op.emitError("plan export: unexpected top-level op");
    }
  }
  return json::Value(json::Object{{"format", StringRef(contract::kPlanFormat)},
                                  {"version", contract::kFormatVersion},
                                  {"params", std::move(params)},
                                  {"functions", std::move(functions)}});
}

namespace mlir::rvnn {
namespace {

/// Writes the model's files into `directory` and appends their names to
/// `written`, the manifest last.
LogicalResult writeModelFiles(ModuleOp module, const json::Value &plan,
                              StringRef directory, StringRef sourcePath,
                              StringRef sourceText, const KernelTarget &target,
                              const CudaTarget &cudaTarget,
                              SmallVectorImpl<std::string> &written) {
  std::string planText = llvm::formatv("{0:2}", plan).str();
  json::Array files{json::Object{{"path", "plan.json"},
                                 {"role", "plan"},
                                 {"sha256", sha256Hex(planText)}}};
  // Lists `name` (written into `directory`) in `files` with its SHA-256.
  auto listFile = [&](StringRef name, StringRef role) -> LogicalResult {
    llvm::SmallString<256> path(directory);
    llvm::sys::path::append(path, name);
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> bytes =
        llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                    /*RequiresNullTerminator=*/false);
    if (!bytes)
      return module.emitError("cannot read '")
             << path << "': " << bytes.getError().message();
    // json::Value keeps a StringRef as a reference: copy.
    files.push_back(json::Object{{"path", name.str()},
                                 {"role", role.str()},
                                 {"sha256", sha256Hex((*bytes)->getBuffer())}});
    written.push_back(name.str());
    return success();
  };
  std::optional<json::Object> kernels;
  if (ModuleOp kernelIR = kernelsModule(module)) {
    FailureOr<KernelLibraryInfo> library =
        emitKernelLibrary(kernelIR, directory, target);
    if (failed(library) || failed(listFile(library->fileName, "kernels")))
      return failure();
    FailureOr<CudaKernelsInfo> cuda =
        emitCudaKernels(kernelIR, directory, cudaTarget);
    if (failed(cuda))
      return failure();
    json::Array archs;
    for (const CudaArchFiles &arch : cuda->archs) {
      if (failed(listFile(arch.ptx, "ptx")))
        return failure();
      json::Object entry{{"arch", arch.chip}, {"ptx", arch.ptx}};
      if (!arch.cubin.empty()) {
        if (failed(listFile(arch.cubin, "cubin")))
          return failure();
        entry["cubin"] = arch.cubin;
      }
      archs.push_back(std::move(entry));
    }
    json::Object cudaKernels{
        {"abi", StringRef(kCudaKernelAbi)},
        {"block", json::Array{contract::kCudaBlockSize, 1, 1}},
        {"archs", std::move(archs)},
        {"symbols", json::Array(cuda->symbols)}};
    if (!cuda->cpuOnly.empty())
      cudaKernels["cpu_only"] = json::Array(cuda->cpuOnly);
    if (!cuda->unsupported.empty())
      cudaKernels["ptx"] = "not generated: " + cuda->unsupported;
    else if (!cuda->assembler.empty())
      cudaKernels["assembler"] = cuda->assembler;
    else
      cudaKernels["cubin"] = "not assembled: " + cuda->missingAssembler;
    kernels = json::Object{{"abi", StringRef(kKernelAbi)},
                           {"library", library->fileName},
                           {"target", library->triple},
                           {"cpu", library->cpu},
                           {"symbols", json::Array(library->symbols)},
                           {"cuda", std::move(cudaKernels)}};
    if (!library->tuneCpu.empty())
      (*kernels)["tune_cpu"] = library->tuneCpu;
  }
  json::Object manifest{
      {"format", StringRef(contract::kModelFormat)},
      {"version", contract::kFormatVersion},
      {"compiler", "rvnn " RVNN_VERSION " (MLIR " LLVM_VERSION_STRING ")"},
      {"source", sourcePath.str()},
      {"source_sha256", sha256Hex(sourceText)},
      {"files", std::move(files)}};
  if (kernels)
    manifest["kernels"] = std::move(*kernels);
  llvm::SmallString<256> planPath(directory), manifestPath(directory);
  llvm::sys::path::append(planPath, "plan.json");
  llvm::sys::path::append(manifestPath, "manifest.json");
  if (failed(writeFileAtomically(module.getLoc(), planPath, planText)))
    return failure();
  written.push_back("plan.json");
  if (failed(writeFileAtomically(
          module.getLoc(), manifestPath,
          llvm::formatv("{0:2}", json::Value(std::move(manifest))).str())))
    return failure();
  written.push_back("manifest.json");
  return success();
}

/// Moves the files `names` (the manifest last) from `staging` into
/// `directory`. A previous model's manifest goes first, so that a move
/// that fails midway leaves a directory without one (not a model) rather
/// than one whose manifest describes other files.
LogicalResult moveModelFiles(Location loc, StringRef staging,
                             StringRef directory, ArrayRef<std::string> names) {
  llvm::SmallString<256> oldManifest(directory);
  llvm::sys::path::append(oldManifest, "manifest.json");
  if (std::error_code error = llvm::sys::fs::remove(oldManifest))
    return emitError(loc, "cannot replace '")
           << oldManifest << "': " << error.message();
  for (const std::string &name : names) {
    llvm::SmallString<256> from(staging), to(directory);
    llvm::sys::path::append(from, name);
    llvm::sys::path::append(to, name);
    if (std::error_code error = llvm::sys::fs::rename(from, to))
      return emitError(loc, "cannot move '")
             << from << "' to '" << to << "': " << error.message();
  }
  return success();
}

} // namespace
} // namespace mlir::rvnn

LogicalResult mlir::rvnn::writeCompiledModel(ModuleOp module,
                                             StringRef directory,
                                             StringRef sourcePath,
                                             StringRef sourceText,
                                             const KernelTarget &target,
                                             const CudaTarget &cudaTarget) {
  FailureOr<json::Value> plan = exportPlan(module);
  if (failed(plan))
    return failure();
  if (std::error_code error = llvm::sys::fs::create_directories(directory))
    return module.emitError("cannot create '")
           << directory << "': " << error.message();
  // Everything is written into a staging directory inside `directory` (one
  // file system, so the moves are renames) and moved in only when all of
  // it was written: a compile that fails leaves the previous model whole.
  // createUniqueDirectory puts a relative prefix under the system's
  // temporary directory, so the prefix is made absolute first.
  llvm::SmallString<256> stagingPrefix(directory);
  llvm::sys::path::append(stagingPrefix, ".compiling");
  llvm::SmallString<256> staging;
  std::error_code error = llvm::sys::fs::make_absolute(stagingPrefix);
  if (!error)
    error = llvm::sys::fs::createUniqueDirectory(stagingPrefix, staging);
  if (error)
    return module.emitError("cannot create a staging directory in '")
           << directory << "': " << error.message();
  SmallVector<std::string> written;
  LogicalResult result =
      writeModelFiles(module, *plan, staging, sourcePath, sourceText, target,
                      cudaTarget, written);
  if (succeeded(result))
    result = moveModelFiles(module.getLoc(), staging, directory, written);
  llvm::sys::fs::remove_directories(staging);
  return result;
}
