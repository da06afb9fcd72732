// The numbers behind `kilnc --fusion-report`: generic ops before and after
// fusion, operand counts and bytes moved per element, per kernel.
// RUN: %kiln-translate --fusion-stats %S/../Inputs/mix.mlir | %FileCheck %s
// CHECK: mix: ops_before=5 kernels_after=1 inputs=3 outputs=2 scalars=2 bytes_per_element=22
// CHECK: cfma: ops_before=2 kernels_after=1 inputs=2 outputs=1 scalars=1 bytes_per_element=24
