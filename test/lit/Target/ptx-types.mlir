// Every element type and libdevice math (tanh, pow, tan, log1p), complex
// arithmetic and integer division lower to PTX that ptxas accepts; f64
// kernels use 16-byte ld.global.v2 accesses.
// RUN: %kiln-translate --ptx %S/../Inputs/types.mlir -o %t.ptx
// RUN: %FileCheck %s < %t.ptx
// RUN: %if ptxas %{ %ptxas %t.ptx -o %t.cubin %}

// CHECK: .visible .entry mathy_contig(
// CHECK: ld.global.v2.{{[bf]}}64
// CHECK: .visible .entry mathy_strided4(
// CHECK: .visible .entry cplx_contig(
// CHECK: .param .align 8 .b8 cplx_contig_param_{{[0-9]+}}[16]
// CHECK: .visible .entry cplx_strided4(
// CHECK-NOT: .extern
