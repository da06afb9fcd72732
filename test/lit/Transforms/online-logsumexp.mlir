// kiln-online-logsumexp fuses a max stage and the sum of exp(v - max) that
// reads it into one stage of the online logsumexp combiner, when v is the
// same computation in both (here x * a); its two results replace both
// stages' results. A sum of anything else, a max of another value, or
// integers stay two stages. The result still passes the fused-form check.
// RUN: %kiln-opt %s --split-input-file --kiln-online-logsumexp --kiln-verify-fused-kernels | %FileCheck %s

#full = affine_map<(k, r) -> (k, r)>
#kept = affine_map<(k, r) -> (k)>

// CHECK-LABEL: func.func @softmax(
// CHECK: %[[LSE:.*]]:2 = linalg.generic {{.*}}iterator_types = ["parallel", "reduction"]} ins(%arg0 : tensor<?x?xf32>) outs(%{{.*}}, %{{.*}} : tensor<?xf32>, tensor<?xf32>)
// CHECK: ^bb0(%[[V:.*]]: f32, %[[M:.*]]: f32, %[[S:.*]]: f32):
// CHECK-NEXT: %[[X:.*]] = arith.mulf %[[V]], %arg1 : f32
// CHECK-NEXT: %[[R:.*]]:2 = kiln.combine <logsumexp>(%[[M]], %[[S]]), (%[[X]]) {kiln.shape_inputs = 1 : i64} : (f32, f32), (f32)
// CHECK-NEXT: linalg.yield %[[R]]#0, %[[R]]#1 : f32, f32
// CHECK-NOT: kiln.combine
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]} ins(%arg0, %[[LSE]]#0, %[[LSE]]#1 :
// CHECK: return
func.func @softmax(%x: tensor<?x?xf32>, %a: f32) -> tensor<?x?xf32> attributes {kiln.reduction_kernel} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %nk = tensor.dim %x, %c0 : tensor<?x?xf32>
  %nr = tensor.dim %x, %c1 : tensor<?x?xf32>
  %e = tensor.empty(%nk) : tensor<?xf32>
  %i0 = linalg.fill ins(%lowest : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %m = linalg.generic {indexing_maps = [#full, #kept], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%i0 : tensor<?xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %xa = arith.mulf %v, %a : f32
    %r = kiln.combine <max> (%acc), (%xa) {kiln.shape_inputs = 1 : i64} : (f32), (f32)
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %i1 = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.generic {indexing_maps = [#full, #kept, #kept], iterator_types = ["parallel", "reduction"]}
      ins(%x, %m : tensor<?x?xf32>, tensor<?xf32>) outs(%i1 : tensor<?xf32>) {
  ^bb0(%v: f32, %mv: f32, %acc: f32):
    %xa = arith.mulf %v, %a : f32
    %d = arith.subf %xa, %mv : f32
    %ex = math.exp %d : f32
    %r = kiln.combine <sum> (%acc), (%ex) {kiln.shape_inputs = 1 : i64} : (f32), (f32)
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %o = tensor.empty(%nk, %nr) : tensor<?x?xf32>
  %y = linalg.generic {indexing_maps = [#full, #kept, #kept, #full], iterator_types = ["parallel", "parallel"]}
      ins(%x, %m, %s : tensor<?x?xf32>, tensor<?xf32>, tensor<?xf32>) outs(%o : tensor<?x?xf32>) {
  ^bb0(%v: f32, %mv: f32, %sv: f32, %out: f32):
    %xa = arith.mulf %v, %a : f32
    %d = arith.subf %xa, %mv : f32
    %ex = math.exp %d : f32
    %q = arith.divf %ex, %sv : f32
    linalg.yield %q : f32
  } -> tensor<?x?xf32>
  return %y : tensor<?x?xf32>
}

// -----
#full = affine_map<(k, r) -> (k, r)>
#kept = affine_map<(k, r) -> (k)>

// The sum's value is not exp(v - m) of the max's v (x, not x * 2): two stages.
// CHECK-LABEL: func.func @other_value(
// CHECK: kiln.combine <max>
// CHECK: kiln.combine <sum>
// CHECK-NOT: logsumexp
func.func @other_value(%x: tensor<?x?xf32>) -> tensor<?xf32> attributes {kiln.reduction_kernel} {
  %c0 = arith.constant 0 : index
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %nk = tensor.dim %x, %c0 : tensor<?x?xf32>
  %e = tensor.empty(%nk) : tensor<?xf32>
  %i0 = linalg.fill ins(%lowest : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %m = linalg.generic {indexing_maps = [#full, #kept], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%i0 : tensor<?xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %x2 = arith.mulf %v, %two : f32
    %r = kiln.combine <max> (%acc), (%x2) : (f32), (f32)
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %i1 = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.generic {indexing_maps = [#full, #kept, #kept], iterator_types = ["parallel", "reduction"]}
      ins(%x, %m : tensor<?x?xf32>, tensor<?xf32>) outs(%i1 : tensor<?xf32>) {
  ^bb0(%v: f32, %mv: f32, %acc: f32):
    %d = arith.subf %v, %mv : f32
    %ex = math.exp %d : f32
    %r = kiln.combine <sum> (%acc), (%ex) : (f32), (f32)
    linalg.yield %r : f32
  } -> tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----
#full = affine_map<(k, r) -> (k, r)>
#kept = affine_map<(k, r) -> (k)>

// The sum folds 2 exp(v - m), not exp(v - m): two stages.
// CHECK-LABEL: func.func @scaled(
// CHECK: kiln.combine <max>
// CHECK: kiln.combine <sum>
func.func @scaled(%x: tensor<?x?xf32>) -> tensor<?xf32> attributes {kiln.reduction_kernel} {
  %c0 = arith.constant 0 : index
  %lowest = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %two = arith.constant 2.0 : f32
  %nk = tensor.dim %x, %c0 : tensor<?x?xf32>
  %e = tensor.empty(%nk) : tensor<?xf32>
  %i0 = linalg.fill ins(%lowest : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %m = linalg.generic {indexing_maps = [#full, #kept], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%i0 : tensor<?xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %r = kiln.combine <max> (%acc), (%v) : (f32), (f32)
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %i1 = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.generic {indexing_maps = [#full, #kept, #kept], iterator_types = ["parallel", "reduction"]}
      ins(%x, %m : tensor<?x?xf32>, tensor<?xf32>) outs(%i1 : tensor<?xf32>) {
  ^bb0(%v: f32, %mv: f32, %acc: f32):
    %d = arith.subf %v, %mv : f32
    %ex = math.exp %d : f32
    %ex2 = arith.mulf %ex, %two : f32
    %r = kiln.combine <sum> (%acc), (%ex2) : (f32), (f32)
    linalg.yield %r : f32
  } -> tensor<?xf32>
  return %s : tensor<?xf32>
}

// -----
#full = affine_map<(k, r) -> (k, r)>
#kept = affine_map<(k, r) -> (k)>

// Different inputs (the max of y, the exp of x - max(y)): two stages.
// CHECK-LABEL: func.func @other_input(
// CHECK: kiln.combine <max>
// CHECK: kiln.combine <sum>
func.func @other_input(%x: tensor<?x?xf64>, %y: tensor<?x?xf64>) -> tensor<?xf64> attributes {kiln.reduction_kernel} {
  %c0 = arith.constant 0 : index
  %lowest = arith.constant 0xFFF0000000000000 : f64
  %zero = arith.constant 0.0 : f64
  %nk = tensor.dim %x, %c0 : tensor<?x?xf64>
  %e = tensor.empty(%nk) : tensor<?xf64>
  %i0 = linalg.fill ins(%lowest : f64) outs(%e : tensor<?xf64>) -> tensor<?xf64>
  %m = linalg.generic {indexing_maps = [#full, #kept], iterator_types = ["parallel", "reduction"]}
      ins(%y : tensor<?x?xf64>) outs(%i0 : tensor<?xf64>) {
  ^bb0(%v: f64, %acc: f64):
    %r = kiln.combine <max> (%acc), (%v) : (f64), (f64)
    linalg.yield %r : f64
  } -> tensor<?xf64>
  %i1 = linalg.fill ins(%zero : f64) outs(%e : tensor<?xf64>) -> tensor<?xf64>
  %s = linalg.generic {indexing_maps = [#full, #kept, #kept], iterator_types = ["parallel", "reduction"]}
      ins(%x, %m : tensor<?x?xf64>, tensor<?xf64>) outs(%i1 : tensor<?xf64>) {
  ^bb0(%v: f64, %mv: f64, %acc: f64):
    %d = arith.subf %v, %mv : f64
    %ex = math.exp %d : f64
    %r = kiln.combine <sum> (%acc), (%ex) : (f64), (f64)
    linalg.yield %r : f64
  } -> tensor<?xf64>
  return %s : tensor<?xf64>
}
