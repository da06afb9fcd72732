// Two outputs computed from one shared producer: producer/consumer fusion
// leaves two sibling generics, which Kiln merges into one with two results.
// RUN: %kiln-opt %s --kiln-fuse-kernels --kiln-verify-fused-kernels | %FileCheck %s

#id = affine_map<(i) -> (i)>

// CHECK-LABEL: func.func @two_outputs(
// CHECK-SAME: -> (tensor<?xf64>, tensor<?xi1>)
// CHECK-SAME: kiln.ops_before_fusion = 3
// CHECK: %[[G:.*]]:2 = linalg.generic
// CHECK-SAME: ins(%arg0 : tensor<?xf64>)
// CHECK: linalg.yield {{.*}} : f64, i1
// CHECK-NOT: linalg.generic
// CHECK: return %[[G]]#0, %[[G]]#1
func.func @two_outputs(%x: tensor<?xf64>, %t: f64) -> (tensor<?xf64>, tensor<?xi1>) attributes {kiln.kernel} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf64>
  %e0 = tensor.empty(%n) : tensor<?xf64>
  %e = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf64>) outs(%e0 : tensor<?xf64>) {
  ^bb0(%a: f64, %o: f64):
    %v = math.exp %a : f64
    linalg.yield %v : f64
  } -> tensor<?xf64>
  %e1 = tensor.empty(%n) : tensor<?xf64>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%e : tensor<?xf64>) outs(%e1 : tensor<?xf64>) {
  ^bb0(%a: f64, %o: f64):
    %v = arith.mulf %a, %a : f64
    linalg.yield %v : f64
  } -> tensor<?xf64>
  %e2 = tensor.empty(%n) : tensor<?xi1>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%e : tensor<?xf64>) outs(%e2 : tensor<?xi1>) {
  ^bb0(%a: f64, %o: i1):
    %v = arith.cmpf ogt, %a, %t : f64
    linalg.yield %v : i1
  } -> tensor<?xi1>
  return %s, %c : tensor<?xf64>, tensor<?xi1>
}
