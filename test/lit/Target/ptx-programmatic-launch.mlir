// Programmatic dependent launch: with a --cuda-arch of sm_90 or later, every
// variant is also compiled for sm_90 (the source of those cubins), and each
// elementwise one starts with griddepcontrol.launch_dependents then
// griddepcontrol.wait, before any global memory access. The sm_80 PTX (JIT
// for older GPUs) has neither; without an sm_90 arch there is no sm_90 PTX.
// RUN: %kiln-translate --ptx90 --cuda-arch=sm_80,sm_90 %S/ptx-entries.mlir -o %t.ptx
// RUN: %FileCheck %s < %t.ptx
// RUN: %kiln-translate --ptx --cuda-arch=sm_80,sm_90 %S/ptx-entries.mlir | %FileCheck %s --check-prefix=SM80
// RUN: %kiln-translate --ptx90 --cuda-arch=sm_80 %S/ptx-entries.mlir | count 0
// RUN: %if ptxas %{ %ptxas_bin -arch=sm_90 %t.ptx -o %t.cubin %}

// CHECK: .target sm_90
// CHECK-LABEL: .entry saxpy_contig(
// CHECK-NOT: {{ld|st}}.global
// CHECK: griddepcontrol.launch_dependents;
// CHECK-NOT: {{ld|st}}.global
// CHECK: griddepcontrol.wait;
// CHECK: ld.global
// CHECK-LABEL: .entry saxpy_strided1(
// CHECK-NOT: {{ld|st}}.global
// CHECK: griddepcontrol.wait;
// CHECK-LABEL: .entry saxpy_strided2(
// CHECK-NOT: {{ld|st}}.global
// CHECK: griddepcontrol.wait;
// CHECK-LABEL: .entry saxpy_strided3(
// CHECK-NOT: {{ld|st}}.global
// CHECK: griddepcontrol.wait;
// CHECK-LABEL: .entry saxpy_strided4(
// CHECK-NOT: {{ld|st}}.global
// CHECK: griddepcontrol.wait;
// CHECK-LABEL: .entry saxpy_rows(
// CHECK-NOT: {{ld|st}}.global
// CHECK: griddepcontrol.wait;

// SM80: .target sm_80
// SM80-NOT: griddepcontrol
