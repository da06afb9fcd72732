//===- Frontend/ElementType.h - Kiln element types in the frontend -*- C++ -*-===//
//
// Maps C++ types seen in the AST to Kiln element types, and those to MLIR
// types and C++ spellings; NumPy promotion where the frontend must compute a
// type the AST does not show (the operand type of a comparison).
//
//===----------------------------------------------------------------------===//
#ifndef KILN_FRONTEND_ELEMENTTYPE_H
#define KILN_FRONTEND_ELEMENTTYPE_H

#include "Frontend/Frontend.h"

#include "clang/AST/Type.h"
#include "mlir/IR/Types.h"

#include <optional>

namespace kiln::frontend {

enum class TypeKind { Bool, Int, Float, Complex };
TypeKind kindOf(ElementType t);
unsigned byteSize(ElementType t);
bool isUnsigned(ElementType t);

/// True for a declaration in namespace ::kiln: directly in it, or with
/// `nested` also in a namespace inside it (kiln::random, kiln::linalg).
bool inKilnNamespace(const clang::Decl *d, bool nested = false);

/// The element type of a `kiln::array<E>` type (through references and
/// cv-qualifiers), or nullopt if `t` is not a kiln array.
std::optional<ElementType> arrayElementType(clang::QualType t);

/// The element type of a C++ type exactly (bool, signed/unsigned char,
/// int, long, long long, float, double, std::complex of float or double),
/// or nullopt: what a value of that type is to a kernel.
std::optional<ElementType> exactElementType(clang::QualType t);

/// The element type a C++ scalar of type `t` passes to a kernel as (the rule
/// of kiln::detail::scalar in fused.hpp), or nullopt if not a scalar.
std::optional<ElementType> scalarElementType(clang::QualType t);

/// NumPy promotion of two array element types.
ElementType promote(ElementType a, ElementType b);
/// NumPy 2 (NEP 50) promotion of an array element type with a weak scalar.
ElementType promoteWithScalar(ElementType array, ElementType scalar);

/// The real type of a complex type (identity for real types).
ElementType realPart(ElementType t);

/// The MLIR type of one element in registers (i1 for bool).
mlir::Type valueType(mlir::MLIRContext &ctx, ElementType t);
/// The MLIR type of one element in memory (i8 for bool: C++ bool is a byte).
mlir::Type storageType(mlir::MLIRContext &ctx, ElementType t);

/// C++ spelling, e.g. "float", "std::complex<float>", "std::int32_t".
const char *cxxSpelling(ElementType t);

} // namespace kiln::frontend

#endif
