// Frontend-style input of host-e2e.mlir: one generic per operation.
#id = affine_map<(i) -> (i)>
func.func @mix(%x: tensor<?xf32>, %y: tensor<?xf64>, %m: tensor<?xi1>, %a: f64, %flag: i1) -> (tensor<?xf64>, tensor<?xi1>) attributes {kiln.kernel} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf64>
  %t = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<?xf32>, tensor<?xf64>) outs(%e : tensor<?xf64>) {
  ^bb0(%xi: f32, %yi: f64, %o: f64):
    %d = arith.extf %xi : f32 to f64
    %p = arith.mulf %d, %a : f64
    %s = arith.addf %p, %yi : f64
    linalg.yield %s : f64
  } -> tensor<?xf64>
  %e1 = tensor.empty(%n) : tensor<?xf64>
  %sq = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : tensor<?xf64>) outs(%e1 : tensor<?xf64>) {
  ^bb0(%ti: f64, %o: f64):
    %ab = math.absf %ti : f64
    %r = math.sqrt %ab : f64
    linalg.yield %r : f64
  } -> tensor<?xf64>
  %e2 = tensor.empty(%n) : tensor<?xf64>
  %ng = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : tensor<?xf64>) outs(%e2 : tensor<?xf64>) {
  ^bb0(%ti: f64, %o: f64):
    %r = arith.negf %ti : f64
    linalg.yield %r : f64
  } -> tensor<?xf64>
  %e3 = tensor.empty(%n) : tensor<?xf64>
  %w = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%m, %sq, %ng : tensor<?xi1>, tensor<?xf64>, tensor<?xf64>) outs(%e3 : tensor<?xf64>) {
  ^bb0(%mi: i1, %a1: f64, %b1: f64, %o: f64):
    %r = arith.select %mi, %a1, %b1 : f64
    linalg.yield %r : f64
  } -> tensor<?xf64>
  %e4 = tensor.empty(%n) : tensor<?xi1>
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%t : tensor<?xf64>) outs(%e4 : tensor<?xi1>) {
  ^bb0(%ti: f64, %o: i1):
    %one = arith.constant 1.0 : f64
    %g = arith.cmpf ogt, %ti, %one : f64
    %r = arith.xori %g, %flag : i1
    linalg.yield %r : i1
  } -> tensor<?xi1>
  return %w, %c : tensor<?xf64>, tensor<?xi1>
}

func.func @cfma(%z: tensor<?xcomplex<f32>>, %w: tensor<?xcomplex<f32>>, %s: complex<f32>) -> tensor<?xcomplex<f32>> attributes {kiln.kernel} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %z, %c0 : tensor<?xcomplex<f32>>
  %e = tensor.empty(%n) : tensor<?xcomplex<f32>>
  %p = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%z, %w : tensor<?xcomplex<f32>>, tensor<?xcomplex<f32>>) outs(%e : tensor<?xcomplex<f32>>) {
  ^bb0(%zi: complex<f32>, %wi: complex<f32>, %o: complex<f32>):
    %m = complex.mul %zi, %wi : complex<f32>
    linalg.yield %m : complex<f32>
  } -> tensor<?xcomplex<f32>>
  %e1 = tensor.empty(%n) : tensor<?xcomplex<f32>>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%p : tensor<?xcomplex<f32>>) outs(%e1 : tensor<?xcomplex<f32>>) {
  ^bb0(%pi: complex<f32>, %o: complex<f32>):
    %a = complex.add %pi, %s : complex<f32>
    %x = complex.exp %a : complex<f32>
    linalg.yield %x : complex<f32>
  } -> tensor<?xcomplex<f32>>
  return %r : tensor<?xcomplex<f32>>
}
