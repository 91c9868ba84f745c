//===- ExecContractGen.cpp - rvnn_exec execution-contract header ----------===//
//
// -gen-exec-contract: emits rvnn/Dialect/Exec/ExecContract.h, the plain C++17
// header (no MLIR, no LLVM) through which the compiler and the LibTorch runtime
// share the names of the rvnn_exec dialect: op names and execution kinds,
// operand indices, attribute names, enum keywords and the format version of
// compiled models. Everything is read from ODS:
//   - the one record derived from class `Exec_FormatInfo`;
//   - every op whose dialect is `rvnn_exec` (its `executionKind` string field,
//     its operands and attributes, its AttrSizedOperandSegments trait);
//   - every EnumAttrInfo one of those ops' attributes uses, directly or
//     through an EnumAttr wrapper (and through OptionalAttr, DefaultValuedAttr
//     and the like).
// The output is deterministic: ops sorted by name, enums by class name.
//
//===----------------------------------------------------------------------===//

#include "mlir/TableGen/Attribute.h"
#include "mlir/TableGen/GenInfo.h"
#include "mlir/TableGen/Operator.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/TableGen/Error.h"
#include "llvm/TableGen/Record.h"

#include <map>
#include <string>
#include <vector>

using llvm::Record;
using llvm::RecordKeeper;
using llvm::StringRef;
using mlir::tblgen::Attribute;
using mlir::tblgen::EnumAttr;
using mlir::tblgen::EnumAttrCase;
using mlir::tblgen::Operator;

namespace {

constexpr StringRef kDialectName = "rvnn_exec";
constexpr StringRef kFormatClass = "Exec_FormatInfo";
constexpr StringRef kKindField = "executionKind";
constexpr StringRef kAttrSizedOperands =
    "::mlir::OpTrait::AttrSizedOperandSegments";
constexpr StringRef kAttrSizedResults =
    "::mlir::OpTrait::AttrSizedResultSegments";

// The closed set of execution kinds, in the order of the generated enum.
struct KindInfo {
  StringRef keyword;
  StringRef enumerator;
};
constexpr KindInfo kKinds[] = {{"control", "Control"},
                               {"scalar", "Scalar"},
                               {"view", "View"},
                               {"library", "Library"},
                               {"kernel", "Kernel"}};

// Names the generated header declares itself in namespace rvnn::contract; an
// ODS enum with one of these class names would collide with them.
constexpr StringRef kReservedNames[] = {"OpKind", "OpInfo",  "kOps",
                                        "ops",    "keyword", "lookupOp"};

bool isCppKeyword(StringRef name) {
  static const llvm::StringSet<> keywords = {
      "alignas",       "alignof",     "and",
      "and_eq",        "asm",         "auto",
      "bitand",        "bitor",       "bool",
      "break",         "case",        "catch",
      "char",          "char8_t",     "char16_t",
      "char32_t",      "class",       "compl",
      "concept",       "const",       "consteval",
      "constexpr",     "constinit",   "const_cast",
      "continue",      "co_await",    "co_return",
      "co_yield",      "decltype",    "default",
      "delete",        "do",          "double",
      "dynamic_cast",  "else",        "enum",
      "explicit",      "export",      "extern",
      "false",         "float",       "for",
      "friend",        "goto",        "if",
      "inline",        "int",         "long",
      "mutable",       "namespace",   "new",
      "noexcept",      "not",         "not_eq",
      "nullptr",       "operator",    "or",
      "or_eq",         "private",     "protected",
      "public",        "register",    "reinterpret_cast",
      "requires",      "return",      "short",
      "signed",        "sizeof",      "static",
      "static_assert", "static_cast", "struct",
      "switch",        "template",    "this",
      "thread_local",  "throw",       "true",
      "try",           "typedef",     "typeid",
      "typename",      "union",       "unsigned",
      "using",         "virtual",     "void",
      "volatile",      "wchar_t",     "while",
      "xor",           "xor_eq"};
  return keywords.contains(name);
}

bool isIdentifier(StringRef name) {
  if (name.empty() || !(llvm::isAlpha(name.front()) || name.front() == '_'))
    return false;
  return llvm::all_of(name.drop_front(),
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

// A C++ identifier for an ODS name: names that are C++ keywords, or equal to
// the struct they are declared in (ill-formed for a static member), get a
// trailing underscore; the string values keep the ODS spelling.
std::string memberIdentifier(StringRef name, StringRef enclosing,
                             const Record *where) {
  if (!isIdentifier(name))
    llvm::PrintFatalError(where, "rvnn-tblgen: '" + name +
                                     "' is not a C++ identifier");
  if (isCppKeyword(name) || name == enclosing)
    return (name + "_").str();
  return name.str();
}

// The body of a C++ string literal for `text`: ODS names and keywords are
// plain ASCII, but escape anyway so that the output always compiles (octal
// escapes: they take at most three digits, unlike \x).
std::string escaped(StringRef text) {
  std::string result;
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      result += '\\';
      result += static_cast<char>(c);
    } else if (llvm::isPrint(c)) {
      result += static_cast<char>(c);
    } else {
      result += '\\';
      result += static_cast<char>('0' + ((c >> 6) & 7));
      result += static_cast<char>('0' + ((c >> 3) & 7));
      result += static_cast<char>('0' + (c & 7));
    }
  }
  return result;
}

struct NamedString {
  std::string identifier;
  std::string value;
};

struct NamedIndex {
  std::string identifier;
  unsigned index;
};

struct OpEntry {
  std::string name;     // rvnn_exec.gemm
  std::string cppClass; // GemmOp
  StringRef kind;       // Library
  std::vector<NamedIndex> operands;
  std::vector<NamedString> attrs;
  std::vector<NamedString> properties;
};

// The EnumAttrInfo record behind an op attribute, or null: looks through
// OptionalAttr / DefaultValuedAttr / ConfinedAttr (baseAttr) and through
// EnumAttr wrappers (the AttrDef's `enum` field).
const Record *enumInfoOf(const Attribute &attr) {
  const Record &def = attr.getBaseAttr().getDef();
  if (def.isSubClassOf("EnumAttrInfo"))
    return &def;
  if (def.isSubClassOf("EnumAttr"))
    if (const Record *info = def.getValueAsOptionalDef("enum"))
      if (info->isSubClassOf("EnumAttrInfo"))
        return info;
  return nullptr;
}

// Checks that the names declared in one scope of the output are distinct.
void checkUnique(llvm::ArrayRef<std::string> identifiers, const Record *where,
                 StringRef what) {
  llvm::StringSet<> seen;
  for (const std::string &identifier : identifiers) {
    if (seen.insert(identifier).second)
      continue;
    std::string message = ("rvnn-tblgen: two " + what +
                           " map to the C++ name '" + identifier + "'")
                              .str();
    if (where)
      llvm::PrintFatalError(where, message);
    llvm::PrintFatalError(message);
  }
}

OpEntry collectOp(const Operator &op,
                  std::map<std::string, const Record *> &enums) {
  const Record &def = op.getDef();
  OpEntry entry;
  entry.name = op.getOperationName();
  entry.cppClass = op.getCppClassName().str();
  if (!isIdentifier(entry.cppClass))
    llvm::PrintFatalError(&def, "rvnn-tblgen: op class name '" +
                                    entry.cppClass +
                                    "' is not a C++ identifier");

  const llvm::RecordVal *kindField = def.getValue(kKindField);
  if (!kindField)
    llvm::PrintFatalError(&def, "rvnn-tblgen: op '" + entry.name +
                                    "' has no string field '" + kKindField +
                                    "' (derive it from Exec_Op)");
  StringRef keyword = def.getValueAsString(kKindField);
  const KindInfo *kind = llvm::find_if(
      kKinds, [&](const KindInfo &info) { return info.keyword == keyword; });
  if (kind == std::end(kKinds))
    llvm::PrintFatalError(&def, "rvnn-tblgen: op '" + entry.name +
                                    "' has unknown executionKind '" + keyword +
                                    "' (expected control, scalar, view, "
                                    "library or kernel)");
  entry.kind = kind->enumerator;

  for (int i = 0, e = op.getNumOperands(); i < e; ++i) {
    StringRef name = op.getOperand(i).name;
    if (name.empty())
      continue; // unnamed operands keep their index but get no constant
    entry.operands.push_back(
        {memberIdentifier(name, "operand", &def), static_cast<unsigned>(i)});
  }

  // Stored (native) attributes only: derived attributes are computed from the
  // op and never appear in its attribute dictionary.
  for (int i = 0, e = op.getNumNativeAttributes(); i < e; ++i) {
    const mlir::tblgen::NamedAttribute &named = op.getAttribute(i);
    entry.attrs.push_back(
        {memberIdentifier(named.name, "attr", &def), named.name.str()});
    if (const Record *info = enumInfoOf(named.attr)) {
      EnumAttr enumAttr(info);
      std::string className = enumAttr.getEnumClassName().str();
      auto [it, inserted] = enums.emplace(className, info);
      if (!inserted && it->second != info)
        llvm::PrintFatalError(
            info, "rvnn-tblgen: two enums named '" + className + "' (" +
                      it->second->getName() + " and " + info->getName() + ")");
    }
  }
  if (op.getTrait(kAttrSizedOperands))
    entry.attrs.push_back({"operandSegmentSizes", "operandSegmentSizes"});
  if (op.getTrait(kAttrSizedResults))
    entry.attrs.push_back({"resultSegmentSizes", "resultSegmentSizes"});

  for (const mlir::tblgen::NamedProperty &property : op.getProperties())
    entry.properties.push_back(
        {memberIdentifier(property.name, "property", &def),
         property.name.str()});

  std::vector<std::string> names;
  for (const NamedIndex &operand : entry.operands)
    names.push_back(operand.identifier);
  checkUnique(names, &def, "operands");
  names.clear();
  for (const NamedString &attr : entry.attrs)
    names.push_back(attr.identifier);
  checkUnique(names, &def, "attributes");
  names.clear();
  for (const NamedString &property : entry.properties)
    names.push_back(property.identifier);
  checkUnique(names, &def, "properties");
  return entry;
}

// The main .td file as a path relative to the source tree (from `include/`
// on), so that the output does not depend on where the tree is checked out.
std::string sourceName(const RecordKeeper &records) {
  std::string file = records.getInputFilename();
  StringRef path = file;
  size_t pos = path.rfind("/include/");
  if (pos != StringRef::npos)
    return path.substr(pos + 1).str();
  if (path.starts_with("include/"))
    return path.str();
  size_t slash = path.find_last_of('/');
  return (slash == StringRef::npos ? path : path.substr(slash + 1)).str();
}

// Lines of the output stay within 80 columns as clang-format (LLVM style)
// would break them: `<indent><declaration> = <value>;`, broken after the `=`
// with a 4-column continuation indent when too long.
constexpr size_t kColumnLimit = 80;

void emitAssignment(llvm::raw_ostream &os, unsigned indent,
                    const llvm::Twine &declaration, const llvm::Twine &value) {
  std::string lhs = declaration.str(), rhs = value.str();
  // `lhs = rhs;` on one line when it fits.
  bool fits = indent + lhs.size() + 3 + rhs.size() + 1 <= kColumnLimit;
  os.indent(indent) << lhs << " =";
  if (fits) {
    os << " " << rhs << ";\n";
  } else {
    os << "\n";
    os.indent(indent + 4) << rhs << ";\n";
  }
}

std::string quoted(StringRef text) { return "\"" + escaped(text) + "\""; }

void emitStringMembers(llvm::raw_ostream &os, StringRef structName,
                       llvm::ArrayRef<NamedString> members) {
  if (members.empty())
    return;
  os << "  struct " << structName << " {\n";
  for (const NamedString &member : members)
    emitAssignment(os, 4,
                   "static constexpr std::string_view " + member.identifier,
                   quoted(member.value));
  os << "  };\n";
}

void emitOp(llvm::raw_ostream &os, const OpEntry &op) {
  os << "struct " << op.cppClass << " {\n";
  emitAssignment(os, 2, "static constexpr std::string_view name",
                 quoted(op.name));
  os << "  static constexpr OpKind kind = OpKind::" << op.kind << ";\n";
  if (!op.operands.empty()) {
    os << "  struct operand {\n";
    for (const NamedIndex &operand : op.operands)
      emitAssignment(os, 4,
                     "static constexpr std::size_t " + operand.identifier,
                     llvm::Twine(operand.index));
    os << "  };\n";
  }
  emitStringMembers(os, "attr", op.attrs);
  emitStringMembers(os, "property", op.properties);
  os << "};\n";
}

void emitEnum(llvm::raw_ostream &os, const Record *info) {
  EnumAttr enumAttr(info);
  if (enumAttr.isBitEnum())
    llvm::PrintFatalError(info, "rvnn-tblgen: bit enums are not supported "
                                "in the execution contract");
  StringRef className = enumAttr.getEnumClassName();
  if (!isIdentifier(className) || isCppKeyword(className) ||
      llvm::is_contained(kReservedNames, className))
    llvm::PrintFatalError(info, "rvnn-tblgen: enum class name '" + className +
                                    "' cannot be used in the contract");
  std::string underlying = enumAttr.getUnderlyingType().str();
  if (underlying.empty())
    underlying = "std::uint32_t";
  else if (!StringRef(underlying).starts_with("std::") &&
           !StringRef(underlying).starts_with("::"))
    underlying = "std::" + underlying;

  std::vector<EnumAttrCase> cases = enumAttr.getAllCases();
  std::vector<std::string> symbols;
  for (const EnumAttrCase &enumCase : cases) {
    StringRef symbol = enumCase.getSymbol();
    if (!isIdentifier(symbol) || isCppKeyword(symbol))
      llvm::PrintFatalError(info, "rvnn-tblgen: enum case '" + symbol +
                                      "' of " + className +
                                      " is not usable as a C++ enumerator");
    symbols.push_back(symbol.str());
  }
  checkUnique(symbols, info, "enum cases");
  llvm::StringSet<> keywords;
  for (const EnumAttrCase &enumCase : cases)
    if (!keywords.insert(enumCase.getStr()).second)
      llvm::PrintFatalError(info, "rvnn-tblgen: two cases of " + className +
                                      " have the keyword '" +
                                      enumCase.getStr() + "'");

  os << "\n// " << info->getName() << " (" << enumAttr.getCppNamespace()
     << "::" << className << ").\n";
  os << "enum class " << className << " : " << underlying << " {\n";
  for (const EnumAttrCase &enumCase : cases)
    os << "  " << enumCase.getSymbol() << " = " << enumCase.getValue() << ",\n";
  os << "};\n\n";

  os << "inline constexpr std::string_view keyword(" << className
     << " value) {\n";
  os << "  switch (value) {\n";
  for (const EnumAttrCase &enumCase : cases)
    os << "  case " << className << "::" << enumCase.getSymbol()
       << ":\n    return \"" << escaped(enumCase.getStr()) << "\";\n";
  os << "  }\n  return {};\n}\n\n";

  std::string returnType =
      ("inline constexpr std::optional<" + className + ">").str();
  std::string signature =
      ("parse" + className + "(std::string_view keyword) {").str();
  os << returnType
     << (returnType.size() + 1 + signature.size() <= kColumnLimit ? " " : "\n")
     << signature << "\n";
  for (const EnumAttrCase &enumCase : cases)
    os << "  if (keyword == \"" << escaped(enumCase.getStr()) << "\")\n"
       << "    return " << className << "::" << enumCase.getSymbol() << ";\n";
  os << "  return std::nullopt;\n}\n";
}

bool emitExecContract(const RecordKeeper &records, llvm::raw_ostream &os) {
  // The format facts.
  std::vector<Record *> formats =
      records.getAllDerivedDefinitionsIfDefined(kFormatClass);
  if (formats.size() != 1)
    llvm::PrintFatalError("rvnn-tblgen: expected exactly one record of class " +
                          kFormatClass + ", found " +
                          llvm::Twine(formats.size()));
  const Record *format = formats.front();
  int64_t formatVersion = format->getValueAsInt("formatVersion");
  StringRef modelFormat = format->getValueAsString("modelFormat");
  StringRef planFormat = format->getValueAsString("planFormat");
  StringRef kernelAbi = format->getValueAsString("kernelAbi");
  StringRef kernelSymbolPrefix = format->getValueAsString("kernelSymbolPrefix");
  StringRef kernelGradSuffix = format->getValueAsString("kernelGradSuffix");
  StringRef cudaKernelAbi = format->getValueAsString("cudaKernelAbi");
  int64_t cudaBlockSize = format->getValueAsInt("cudaBlockSize");
  if (cudaBlockSize <= 0 || cudaBlockSize > 1024)
    llvm::PrintFatalError(format, "rvnn-tblgen: cudaBlockSize must be in "
                                  "[1, 1024] (CUDA's threads per block)");
  std::vector<StringRef> cpuLevels =
      format->getValueAsListOfStrings("kernelCpuLevels");
  if (cpuLevels.empty())
    llvm::PrintFatalError(format, "rvnn-tblgen: kernelCpuLevels is empty");

  // The ops and the enums they use.
  std::vector<OpEntry> ops;
  std::map<std::string, const Record *> enums;
  for (const Record *def : records.getAllDerivedDefinitionsIfDefined("Op")) {
    Operator op(def);
    if (op.getDialectName() != kDialectName)
      continue;
    ops.push_back(collectOp(op, enums));
  }
  if (ops.empty())
    llvm::PrintFatalError("rvnn-tblgen: no op of dialect '" + kDialectName +
                          "' in the input");
  llvm::sort(
      ops, [](const OpEntry &a, const OpEntry &b) { return a.name < b.name; });
  for (size_t i = 1; i < ops.size(); ++i) {
    if (ops[i].name == ops[i - 1].name)
      llvm::PrintFatalError("rvnn-tblgen: two ops named '" + ops[i].name + "'");
  }
  {
    std::vector<std::string> classes;
    for (const OpEntry &op : ops)
      classes.push_back(op.cppClass);
    checkUnique(classes, nullptr, "ops");
  }

  os << "// Generated by rvnn-tblgen -gen-exec-contract from\n// "
     << sourceName(records) << ".\n"
     << "// Do not edit: run `ninja -C build rvnn-exec-contract`.\n"
     << "//\n"
     << "// The execution contract shared by the compiler and the runtime: "
        "plain C++17,\n"
     << "// no MLIR or LLVM headers.\n\n"
     << "#ifndef RVNN_DIALECT_EXEC_EXECCONTRACT_H\n"
     << "#define RVNN_DIALECT_EXEC_EXECCONTRACT_H\n\n"
     << "#include <array>\n"
     << "#include <cstddef>\n"
     << "#include <cstdint>\n"
     << "#include <optional>\n"
     << "#include <string_view>\n\n"
     << "namespace rvnn::contract {\n\n";

  os << "// From " << format->getName() << " (class " << kFormatClass << ").\n";
  os << "inline constexpr std::int64_t kFormatVersion = " << formatVersion
     << ";\n";
  os << "inline constexpr std::string_view kModelFormat = \""
     << escaped(modelFormat) << "\";\n";
  os << "inline constexpr std::string_view kPlanFormat = \""
     << escaped(planFormat) << "\";\n";
  os << "inline constexpr std::string_view kDialect = \""
     << escaped(kDialectName) << "\";\n";
  os << "inline constexpr std::string_view kKernelAbi = \""
     << escaped(kernelAbi) << "\";\n";
  os << "inline constexpr std::string_view kKernelSymbolPrefix = \""
     << escaped(kernelSymbolPrefix) << "\";\n";
  os << "inline constexpr std::string_view kKernelGradSuffix = \""
     << escaped(kernelGradSuffix) << "\";\n";
  os << "inline constexpr std::string_view kCudaKernelAbi = \""
     << escaped(cudaKernelAbi) << "\";\n";
  os << "inline constexpr std::int64_t kCudaBlockSize = " << cudaBlockSize
     << ";\n";
  os << "inline constexpr std::array<std::string_view, " << cpuLevels.size()
     << "> kKernelCpuLevels = {\n    ";
  llvm::interleaveComma(cpuLevels, os, [&](StringRef level) {
    os << "\"" << escaped(level) << "\"";
  });
  os << "};\n\n";

  os << "// Execution kind of an op (the op's `executionKind` in ODS).\n";
  os << "enum class OpKind { ";
  llvm::interleaveComma(kKinds, os,
                        [&](const KindInfo &kind) { os << kind.enumerator; });
  os << " };\n\n";
  os << "inline constexpr std::string_view keyword(OpKind kind) {\n";
  os << "  switch (kind) {\n";
  for (const KindInfo &kind : kKinds)
    os << "  case OpKind::" << kind.enumerator << ":\n    return \""
       << kind.keyword << "\";\n";
  os << "  }\n  return {};\n}\n\n";

  os << "// One struct per op: its name, kind, ODS operand (group) indices and "
        "attribute\n// names.\n";
  os << "namespace ops {\n\n";
  for (const OpEntry &op : ops) {
    emitOp(os, op);
    os << "\n";
  }
  os << "} // namespace ops\n\n";

  os << "struct OpInfo {\n  std::string_view name;\n  OpKind kind;\n};\n\n";
  os << "// Every op, sorted by name.\n";
  os << "inline constexpr std::array<OpInfo, " << ops.size() << "> kOps = {{\n";
  for (const OpEntry &op : ops)
    os << "    {ops::" << op.cppClass << "::name, ops::" << op.cppClass
       << "::kind},\n";
  os << "}};\n\n";

  os << "// The kind of the op named `name`, or nothing when it is not in the "
        "contract.\n";
  os << "inline constexpr std::optional<OpKind> lookupOp(std::string_view "
        "name) {\n"
     << "  std::size_t lo = 0, hi = kOps.size();\n"
     << "  while (lo < hi) {\n"
     << "    std::size_t mid = lo + (hi - lo) / 2;\n"
     << "    if (kOps[mid].name < name)\n"
     << "      lo = mid + 1;\n"
     << "    else\n"
     << "      hi = mid;\n"
     << "  }\n"
     << "  if (lo < kOps.size() && kOps[lo].name == name)\n"
     << "    return kOps[lo].kind;\n"
     << "  return std::nullopt;\n"
     << "}\n";

  os << "\n// Enums of the ops' attributes: enumerators are the ODS case "
        "symbols, keywords\n// the cases' strings (as in the assembly).\n";
  for (const auto &[className, info] : enums)
    emitEnum(os, info);

  os << "\n} // namespace rvnn::contract\n\n"
     << "#endif // RVNN_DIALECT_EXEC_EXECCONTRACT_H\n";
  return false;
}

} // namespace

static mlir::GenRegistration
    genExecContract("gen-exec-contract",
                    "Generate the rvnn_exec execution-contract header "
                    "(plain C++17, no MLIR)",
                    emitExecContract);
