// (x - y) * (x - y) with the subtraction shared (two uses in one consumer):
// still one generic that reads x and y once.
// RUN: %kiln-opt %s --kiln-fuse-kernels --kiln-verify-fused-kernels | %FileCheck %s

#id = affine_map<(i) -> (i)>

// CHECK-LABEL: func.func @squared_diff(
// CHECK-SAME: kiln.ops_before_fusion = 2
// CHECK: linalg.generic
// CHECK-SAME: ins(%arg0, %arg1 : tensor<?xf32>, tensor<?xf32>)
// CHECK: %[[D:.*]] = arith.subf
// CHECK-NOT: arith.subf
// CHECK: arith.mulf %[[D]], %[[D]]
// CHECK-NOT: linalg.generic
func.func @squared_diff(%x: tensor<?xf32>, %y: tensor<?xf32>) -> tensor<?xf32> attributes {kiln.kernel} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e0 = tensor.empty(%n) : tensor<?xf32>
  %d = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<?xf32>, tensor<?xf32>) outs(%e0 : tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.subf %a, %b : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  %e1 = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%d, %d : tensor<?xf32>, tensor<?xf32>) outs(%e1 : tensor<?xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
