// Rank 2 stages the tiles of transposed inputs in dynamic shared memory
// within a budget (99 KiB), in input order: of nine complex128 inputs (a
// square tile of 65 KiB each) the first transposed one is staged and each later one
// only if the ones before were not; the rest are read directly.
// RUN: %kiln-opt %s --kiln-generate-variants | %FileCheck %s

#id = affine_map<(i) -> (i)>

func.func @wide(%a0: tensor<?xcomplex<f64>>, %a1: tensor<?xcomplex<f64>>, %a2: tensor<?xcomplex<f64>>, %a3: tensor<?xcomplex<f64>>, %a4: tensor<?xcomplex<f64>>, %a5: tensor<?xcomplex<f64>>, %a6: tensor<?xcomplex<f64>>, %a7: tensor<?xcomplex<f64>>, %a8: tensor<?xcomplex<f64>>) -> tensor<?xcomplex<f64>> attributes {kiln.kernel} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a0, %c0 : tensor<?xcomplex<f64>>
  %e = tensor.empty(%n) : tensor<?xcomplex<f64>>
  %r = linalg.generic {indexing_maps = [#id, #id, #id, #id, #id, #id, #id, #id, #id, #id], iterator_types = ["parallel"]}
      ins(%a0, %a1, %a2, %a3, %a4, %a5, %a6, %a7, %a8 : tensor<?xcomplex<f64>>, tensor<?xcomplex<f64>>, tensor<?xcomplex<f64>>, tensor<?xcomplex<f64>>, tensor<?xcomplex<f64>>, tensor<?xcomplex<f64>>, tensor<?xcomplex<f64>>, tensor<?xcomplex<f64>>, tensor<?xcomplex<f64>>) outs(%e : tensor<?xcomplex<f64>>) {
  ^bb0(%v0: complex<f64>, %v1: complex<f64>, %v2: complex<f64>, %v3: complex<f64>, %v4: complex<f64>, %v5: complex<f64>, %v6: complex<f64>, %v7: complex<f64>, %v8: complex<f64>, %o: complex<f64>):
    %s0 = complex.add %v0, %v1 : complex<f64>
    %s1 = complex.add %s0, %v2 : complex<f64>
    %s2 = complex.add %s1, %v3 : complex<f64>
    %s3 = complex.add %s2, %v4 : complex<f64>
    %s4 = complex.add %s3, %v5 : complex<f64>
    %s5 = complex.add %s4, %v6 : complex<f64>
    %s6 = complex.add %s5, %v7 : complex<f64>
    %s7 = complex.add %s6, %v8 : complex<f64>
    linalg.yield %s7 : complex<f64>
  } -> tensor<?xcomplex<f64>>
  return %r : tensor<?xcomplex<f64>>
}

// CHECK: gpu.func @wide_strided2(
// CHECK: gpu.dynamic_shared_memory
// CHECK: %[[FITS:.*]] = arith.cmpi ule, %{{.*}}, %c101376
// CHECK: memref.view {{.*}} to memref<?xcomplex<f64>, #gpu.address_space<workgroup>>
// CHECK-COUNT-8: memref.view {{.*}} to memref<?xcomplex<f64>, #gpu.address_space<workgroup>>
// CHECK: gpu.barrier
// CHECK: gpu.return
