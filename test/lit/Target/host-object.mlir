// The host object exports only the `<variant>_host(void **)` wrappers; the
// variants themselves are internal. The optimized contig loop is vectorized.
// RUN: %kiln-translate --host-object %S/../Inputs/types.mlir -o %t.o
// RUN: llvm-nm --defined-only --extern-only %t.o | %FileCheck %s --check-prefix=SYMS
// RUN: %kiln-translate --host-ir %S/ptx-entries.mlir | %FileCheck %s --check-prefix=IR

// SYMS-DAG: T cplx_contig_host
// SYMS-DAG: T cplx_strided1_host
// SYMS-DAG: T cplx_strided4_host
// SYMS-DAG: T mathy_contig_host
// SYMS-DAG: T mathy_strided2_host
// SYMS-NOT: T mathy_contig{{$}}

// IR-NOT: define {{.*}}@saxpy_contig(
// IR: define void @saxpy_contig_host(ptr
// IR: vector.body
// IR: load <4 x float>
// IR: define void @saxpy_strided4_host(ptr
