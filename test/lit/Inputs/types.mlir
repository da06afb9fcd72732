#id = affine_map<(i) -> (i)>
func.func @mathy(%x: tensor<?xf64>, %y: tensor<?xf32>, %k: tensor<?xi32>, %q: tensor<?xi64>, %b: tensor<?xi8>) -> (tensor<?xf64>, tensor<?xf32>, tensor<?xi64>) attributes {kiln.kernel} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf64>
  %e0 = tensor.empty(%n) : tensor<?xf64>
  %e1 = tensor.empty(%n) : tensor<?xf32>
  %e2 = tensor.empty(%n) : tensor<?xi64>
  %r:3 = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y, %k, %q, %b : tensor<?xf64>, tensor<?xf32>, tensor<?xi32>, tensor<?xi64>, tensor<?xi8>) outs(%e0, %e1, %e2 : tensor<?xf64>, tensor<?xf32>, tensor<?xi64>) {
  ^bb0(%xi: f64, %yi: f32, %ki: i32, %qi: i64, %bi: i8, %o0: f64, %o1: f32, %o2: i64):
    %t = math.tanh %xi : f64
    %p = math.powf %t, %xi : f64
    %s = math.sin %yi : f32
    %c = math.cos %yi : f32
    %lg = math.log1p %s : f32
    %ta = math.tan %c : f32
    %f = arith.addf %lg, %ta : f32
    %kk = arith.extsi %ki : i32 to i64
    %d = arith.divsi %qi, %kk : i64
    %m = arith.remsi %qi, %kk : i64
    %bb = arith.extsi %bi : i8 to i64
    %z = arith.addi %d, %m : i64
    %z2 = arith.addi %z, %bb : i64
    %fl = math.floor %p : f64
    %ab = math.absf %fl : f64
    linalg.yield %ab, %f, %z2 : f64, f32, i64
  } -> (tensor<?xf64>, tensor<?xf32>, tensor<?xi64>)
  return %r#0, %r#1, %r#2 : tensor<?xf64>, tensor<?xf32>, tensor<?xi64>
}
func.func @cplx(%z: tensor<?xcomplex<f64>>, %w: tensor<?xcomplex<f32>>, %s: complex<f64>) -> (tensor<?xcomplex<f64>>, tensor<?xf32>) attributes {kiln.kernel} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %z, %c0 : tensor<?xcomplex<f64>>
  %e0 = tensor.empty(%n) : tensor<?xcomplex<f64>>
  %e1 = tensor.empty(%n) : tensor<?xf32>
  %r:2 = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%z, %w : tensor<?xcomplex<f64>>, tensor<?xcomplex<f32>>) outs(%e0, %e1 : tensor<?xcomplex<f64>>, tensor<?xf32>) {
  ^bb0(%zi: complex<f64>, %wi: complex<f32>, %o0: complex<f64>, %o1: f32):
    %ex = complex.exp %zi : complex<f64>
    %m = complex.mul %ex, %s : complex<f64>
    %dv = complex.div %m, %zi : complex<f64>
    %ab = complex.abs %wi : complex<f32>
    %re = complex.re %wi : complex<f32>
    %an = complex.angle %wi : complex<f32>
    %sum = arith.addf %ab, %re : f32
    %sum2 = arith.addf %sum, %an : f32
    linalg.yield %dv, %sum2 : complex<f64>, f32
  } -> (tensor<?xcomplex<f64>>, tensor<?xf32>)
  return %r#0, %r#1 : tensor<?xcomplex<f64>>, tensor<?xf32>
}
