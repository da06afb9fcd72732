//===- Frontend/ElementType.cpp - Kiln element types in the frontend ------===//
#include "Frontend/ElementType.h"

#include "clang/AST/DeclTemplate.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace kiln::frontend {

TypeKind kindOf(ElementType t) {
  switch (t) {
  case ElementType::Bool: return TypeKind::Bool;
  case ElementType::Int8:
  case ElementType::UInt8:
  case ElementType::Int32:
  case ElementType::Int64: return TypeKind::Int;
  case ElementType::Float32:
  case ElementType::Float64: return TypeKind::Float;
  case ElementType::Complex64:
  case ElementType::Complex128: return TypeKind::Complex;
  }
  return TypeKind::Float;
}

unsigned byteSize(ElementType t) {
  switch (t) {
  case ElementType::Bool:
  case ElementType::Int8:
  case ElementType::UInt8: return 1;
  case ElementType::Int32:
  case ElementType::Float32: return 4;
  case ElementType::Int64:
  case ElementType::Float64:
  case ElementType::Complex64: return 8;
  case ElementType::Complex128: return 16;
  }
  return 0;
}

bool isUnsigned(ElementType t) { return t == ElementType::UInt8 || t == ElementType::Bool; }

const char *runtimeDTypeName(ElementType t) {
  switch (t) {
  case ElementType::Bool: return "bool_";
  case ElementType::Int8: return "int8";
  case ElementType::UInt8: return "uint8";
  case ElementType::Int32: return "int32";
  case ElementType::Int64: return "int64";
  case ElementType::Float32: return "float32";
  case ElementType::Float64: return "float64";
  case ElementType::Complex64: return "complex64";
  case ElementType::Complex128: return "complex128";
  }
  return "float32";
}

const char *cxxSpelling(ElementType t) {
  switch (t) {
  case ElementType::Bool: return "bool";
  case ElementType::Int8: return "std::int8_t";
  case ElementType::UInt8: return "std::uint8_t";
  case ElementType::Int32: return "std::int32_t";
  case ElementType::Int64: return "std::int64_t";
  case ElementType::Float32: return "float";
  case ElementType::Float64: return "double";
  case ElementType::Complex64: return "std::complex<float>";
  case ElementType::Complex128: return "std::complex<double>";
  }
  return "float";
}

/// Element type of a builtin or std::complex type, exactly (no scalar rule).
std::optional<ElementType> exactElementType(clang::QualType t) {
  if (t.isNull()) return std::nullopt; // a pack's substitution, an error's recovery
  t = t.getNonReferenceType().getCanonicalType().getUnqualifiedType();
  if (const auto *bt = t->getAs<clang::BuiltinType>()) {
    switch (bt->getKind()) {
    case clang::BuiltinType::Bool: return ElementType::Bool;
    case clang::BuiltinType::SChar:
    case clang::BuiltinType::Char_S: return ElementType::Int8;
    case clang::BuiltinType::UChar:
    case clang::BuiltinType::Char_U: return ElementType::UInt8;
    case clang::BuiltinType::Int: return ElementType::Int32;
    case clang::BuiltinType::Long:
    case clang::BuiltinType::LongLong: return ElementType::Int64;
    case clang::BuiltinType::Float: return ElementType::Float32;
    case clang::BuiltinType::Double: return ElementType::Float64;
    default: return std::nullopt;
    }
  }
  if (const auto *rd = t->getAsCXXRecordDecl()) {
    const auto *spec = llvm::dyn_cast<clang::ClassTemplateSpecializationDecl>(rd);
    if (spec && spec->getName() == "complex" && spec->isInStdNamespace() && spec->getTemplateArgs().size() >= 1 &&
        spec->getTemplateArgs()[0].getKind() == clang::TemplateArgument::Type) {
      auto e = exactElementType(spec->getTemplateArgs()[0].getAsType());
      if (e == ElementType::Float32) return ElementType::Complex64;
      if (e == ElementType::Float64) return ElementType::Complex128;
    }
  }
  return std::nullopt;
}

bool inKilnNamespace(const clang::Decl *d, bool nested) {
  for (const clang::DeclContext *dc = d->getDeclContext()->getRedeclContext(); dc; dc = dc->getParent()) {
    const auto *ns = llvm::dyn_cast<clang::NamespaceDecl>(dc);
    if (ns && ns->getName() == "kiln" && ns->getParent()->getRedeclContext()->isTranslationUnit())
      return true;
    if (!nested) return false;
  }
  return false;
}

std::optional<ElementType> arrayElementType(clang::QualType t) {
  if (t.isNull()) return std::nullopt;
  t = t.getNonReferenceType().getCanonicalType().getUnqualifiedType();
  const auto *rd = t->getAsCXXRecordDecl();
  const auto *spec = llvm::dyn_cast_or_null<clang::ClassTemplateSpecializationDecl>(rd);
  if (!spec || spec->getName() != "array") return std::nullopt;
  const auto *ns = llvm::dyn_cast<clang::NamespaceDecl>(spec->getDeclContext()->getRedeclContext());
  if (!ns || ns->getName() != "kiln" || spec->getTemplateArgs().size() < 1 ||
      spec->getTemplateArgs()[0].getKind() != clang::TemplateArgument::Type)
    return std::nullopt;
  return exactElementType(spec->getTemplateArgs()[0].getAsType());
}

std::optional<ElementType> scalarElementType(clang::QualType t) {
  if (t.isNull()) return std::nullopt;
  clang::QualType c = t.getNonReferenceType().getCanonicalType().getUnqualifiedType();
  if (const auto *bt = c->getAs<clang::BuiltinType>()) {
    if (bt->getKind() == clang::BuiltinType::Bool) return ElementType::Bool;
    if (bt->isInteger()) {
      // kiln::detail::scalar: integers that fit int32 pass as int32, the rest as int64.
      bool small = bt->isSignedInteger() ? bt->getKind() <= clang::BuiltinType::Int
                                         : bt->getKind() < clang::BuiltinType::UInt;
      if (bt->getKind() == clang::BuiltinType::Char_S || bt->getKind() == clang::BuiltinType::Char_U ||
          bt->getKind() == clang::BuiltinType::SChar || bt->getKind() == clang::BuiltinType::UChar ||
          bt->getKind() == clang::BuiltinType::Short || bt->getKind() == clang::BuiltinType::UShort ||
          bt->getKind() == clang::BuiltinType::Int)
        small = true;
      return small ? ElementType::Int32 : ElementType::Int64;
    }
    if (bt->getKind() == clang::BuiltinType::Float) return ElementType::Float32;
    if (bt->isFloatingPoint()) return ElementType::Float64;
    return std::nullopt;
  }
  auto e = exactElementType(c);
  if (e && kindOf(*e) == TypeKind::Complex) return e;
  return std::nullopt;
}

ElementType realPart(ElementType t) {
  if (t == ElementType::Complex64) return ElementType::Float32;
  if (t == ElementType::Complex128) return ElementType::Float64;
  return t;
}

static ElementType complexOf(ElementType real) {
  return real == ElementType::Float64 ? ElementType::Complex128 : ElementType::Complex64;
}

ElementType promote(ElementType a, ElementType b) {
  if (a == b) return a;
  TypeKind ka = kindOf(a), kb = kindOf(b);
  if (ka == TypeKind::Bool) return b;
  if (kb == TypeKind::Bool) return a;
  if (ka == TypeKind::Int && kb == TypeKind::Int) {
    // int8 + uint8 -> int16 in NumPy; Kiln has no int16 and uses int32.
    if ((a == ElementType::Int8 && b == ElementType::UInt8) || (a == ElementType::UInt8 && b == ElementType::Int8))
      return ElementType::Int32;
    return byteSize(a) >= byteSize(b) ? a : b;
  }
  // Mixed with an integer: int8/uint8 fit float32 exactly; int32/int64 need float64.
  auto floatFor = [](ElementType i, ElementType f) {
    if (byteSize(i) <= 2) return f;
    return ElementType::Float64;
  };
  if (ka == TypeKind::Int && kb == TypeKind::Float) return floatFor(a, b);
  if (kb == TypeKind::Int && ka == TypeKind::Float) return floatFor(b, a);
  if (ka == TypeKind::Int && kb == TypeKind::Complex) return complexOf(floatFor(a, realPart(b)));
  if (kb == TypeKind::Int && ka == TypeKind::Complex) return complexOf(floatFor(b, realPart(a)));
  if (ka == TypeKind::Float && kb == TypeKind::Float) return ElementType::Float64;
  // Float with complex, or two complex types: the wider real part.
  ElementType ra = realPart(a), rb = realPart(b);
  return complexOf(ra == ElementType::Float64 || rb == ElementType::Float64 ? ElementType::Float64
                                                                           : ElementType::Float32);
}

ElementType promoteWithScalar(ElementType array, ElementType scalar) {
  TypeKind ka = kindOf(array), ks = kindOf(scalar);
  if (static_cast<int>(ks) <= static_cast<int>(ka)) return array; // same or lower kind: weak
  if (ks == TypeKind::Int) return ElementType::Int64;              // bool array, int scalar
  if (ks == TypeKind::Float) return ElementType::Float64;          // bool/int array, float scalar
  // Complex scalar: complex of the array's float precision.
  if (ka == TypeKind::Float) return complexOf(array);
  return ElementType::Complex128;
}

mlir::Type valueType(mlir::MLIRContext &ctx, ElementType t) {
  mlir::Builder b(&ctx);
  switch (t) {
  case ElementType::Bool: return b.getI1Type();
  case ElementType::Int8:
  case ElementType::UInt8: return b.getI8Type();
  case ElementType::Int32: return b.getI32Type();
  case ElementType::Int64: return b.getI64Type();
  case ElementType::Float32: return b.getF32Type();
  case ElementType::Float64: return b.getF64Type();
  case ElementType::Complex64: return mlir::ComplexType::get(b.getF32Type());
  case ElementType::Complex128: return mlir::ComplexType::get(b.getF64Type());
  }
  return b.getF32Type();
}

mlir::Type storageType(mlir::MLIRContext &ctx, ElementType t) {
  if (t == ElementType::Bool) return mlir::IntegerType::get(&ctx, 8);
  return valueType(ctx, t);
}

} // namespace kiln::frontend
