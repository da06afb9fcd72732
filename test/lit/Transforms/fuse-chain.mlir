// A chain of elementwise ops (one linalg.generic each, as the frontend emits
// them) fuses into one generic that captures the scalar argument.
// RUN: %kiln-opt %s --kiln-fuse-kernels --kiln-verify-fused-kernels | %FileCheck %s

#id = affine_map<(i) -> (i)>

// CHECK-LABEL: func.func @chain(
// CHECK-SAME: kiln.kernel
// CHECK-SAME: kiln.ops_before_fusion = 3
// CHECK: linalg.generic
// CHECK-SAME: ins(%arg0, %arg1 : tensor<?xf32>, tensor<?xf32>)
// CHECK: arith.mulf %arg2
// CHECK: arith.addf
// CHECK: math.sqrt
// CHECK: linalg.yield
// CHECK-NOT: linalg.generic
// CHECK: return
func.func @chain(%x: tensor<?xf32>, %y: tensor<?xf32>, %a: f32) -> tensor<?xf32> attributes {kiln.kernel} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e0 = tensor.empty(%n) : tensor<?xf32>
  %ax = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%e0 : tensor<?xf32>) {
  ^bb0(%xi: f32, %o: f32):
    %m = arith.mulf %a, %xi : f32
    linalg.yield %m : f32
  } -> tensor<?xf32>
  %e1 = tensor.empty(%n) : tensor<?xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%ax, %y : tensor<?xf32>, tensor<?xf32>) outs(%e1 : tensor<?xf32>) {
  ^bb0(%p: f32, %yi: f32, %o: f32):
    %t = arith.addf %p, %yi : f32
    linalg.yield %t : f32
  } -> tensor<?xf32>
  %e2 = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%s : tensor<?xf32>) outs(%e2 : tensor<?xf32>) {
  ^bb0(%si: f32, %o: f32):
    %q = math.sqrt %si : f32
    linalg.yield %q : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}
