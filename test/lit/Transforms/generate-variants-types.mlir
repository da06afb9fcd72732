// Element types and vector widths: V = 16 bytes / widest operand; bool is a
// byte in memory and in parameters (converted with cmpi/extui); complex
// kernels use V = 1.
// RUN: %kiln-opt %s --split-input-file --kiln-generate-variants | %FileCheck %s

#id = affine_map<(i) -> (i)>

// f32 and f64 operands: V = 2 (16 bytes of f64), an 8-byte f32 vector.
// CHECK-LABEL: gpu.func @mixed_contig(
// CHECK-SAME: memref<?xf32, strided<[1], offset: ?>>, %{{.*}}: memref<?xi8, strided<[1], offset: ?>>, %{{.*}}: memref<?xf64, strided<[1], offset: ?>>, %{{.*}}: memref<?xi8, strided<[1], offset: ?>>, %[[FLAG:.*]]: i8) kernel
// CHECK: %[[B:.*]] = arith.cmpi ne, %[[FLAG]], %{{.*}} : i8
// CHECK: vector.load {{.*}} {alignment = 8 : i64} {{.*}} vector<2xf32>
// CHECK: vector.load {{.*}} {alignment = 2 : i64} {{.*}} vector<2xi8>
// CHECK: arith.cmpi ne, {{.*}} : i8
// CHECK: vector.store {{.*}} {alignment = 16 : i64} {{.*}} vector<2xf64>
// CHECK: arith.extui {{.*}} : i1 to i8
// CHECK: vector.store {{.*}} {alignment = 2 : i64} {{.*}} vector<2xi8>
func.func @mixed(%x: tensor<?xf32>, %m: tensor<?xi1>, %flag: i1) -> (tensor<?xf64>, tensor<?xi1>) attributes {kiln.kernel} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e0 = tensor.empty(%n) : tensor<?xf64>
  %e1 = tensor.empty(%n) : tensor<?xi1>
  %r:2 = linalg.generic {indexing_maps = [#id, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %m : tensor<?xf32>, tensor<?xi1>) outs(%e0, %e1 : tensor<?xf64>, tensor<?xi1>) {
  ^bb0(%xi: f32, %mi: i1, %o0: f64, %o1: i1):
    %d = arith.extf %xi : f32 to f64
    %z = arith.constant 0.0 : f64
    %s = arith.select %mi, %d, %z : f64
    %k = arith.xori %mi, %flag : i1
    linalg.yield %s, %k : f64, i1
  } -> (tensor<?xf64>, tensor<?xi1>)
  return %r#0, %r#1 : tensor<?xf64>, tensor<?xi1>
}

// -----

#id = affine_map<(i) -> (i)>

// CHECK-LABEL: gpu.func @cmul_contig(
// CHECK-SAME: memref<?xcomplex<f32>, strided<[1], offset: ?>>, %{{.*}}: memref<?xcomplex<f32>, strided<[1], offset: ?>>, %[[S:.*]]: complex<f32>) kernel
// CHECK-NOT: vector.load
// CHECK: memref.load
// CHECK: complex.mul
// CHECK: complex.add %{{.*}}, %[[S]]
func.func @cmul(%z: tensor<?xcomplex<f32>>, %s: complex<f32>) -> tensor<?xcomplex<f32>> attributes {kiln.kernel} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %z, %c0 : tensor<?xcomplex<f32>>
  %e = tensor.empty(%n) : tensor<?xcomplex<f32>>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%z : tensor<?xcomplex<f32>>) outs(%e : tensor<?xcomplex<f32>>) {
  ^bb0(%zi: complex<f32>, %o: complex<f32>):
    %m = complex.mul %zi, %zi : complex<f32>
    %a = complex.add %m, %s : complex<f32>
    linalg.yield %a : complex<f32>
  } -> tensor<?xcomplex<f32>>
  return %r : tensor<?xcomplex<f32>>
}
