// kiln-generate-variants on a fused reduction kernel (the row L2 norm): four
// GPU kernels and three host functions, all with the ABI's parameters:
// full inputs, kept inputs, the output, scalars, then the control block.
// RUN: %kiln-opt %s --kiln-verify-fused-kernels --kiln-generate-variants | %FileCheck %s

#full = affine_map<(k, r) -> (k, r)>
#kept = affine_map<(k, r) -> (k)>
#id = affine_map<(k) -> (k)>

func.func @l2(%x: tensor<?x?xf32>) -> tensor<?xf32> attributes {kiln.reduction_kernel} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %nk = tensor.dim %x, %c0 : tensor<?x?xf32>
  %e = tensor.empty(%nk) : tensor<?xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.generic {indexing_maps = [#full, #kept], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<?x?xf32>) outs(%init : tensor<?xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %sq = arith.mulf %v, %v : f32
    %r = kiln.combine <sum> (%acc), (%sq) : (f32), (f32)
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %out = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%s : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.sqrt %v : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  return %out : tensor<?xf32>
}

// A block per kept element: vector loads, a warp tree, shared memory
// across warps, every phase.
// CHECK: gpu.module @kiln_kernels
// CHECK: gpu.func @l2_rrows(%{{.*}}: memref<?x?xf32, strided<[?, 1], offset: ?>>, %{{.*}}: memref<?xf32, strided<[?], offset: ?>>, %{{.*}}: memref<?xi8>, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i32, %{{.*}}: i64, %{{.*}}: i64)
// CHECK-SAME: workgroup(%{{.*}} : memref<32xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<1xf32, #gpu.address_space<workgroup>>)
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK: vector.load {{.*}} vector<4xf32>
// CHECK: gpu.shuffle down
// CHECK: gpu.barrier
// CHECK: math.sqrt
// CHECK: memref.view
// A warp per kept element: the tree ends in a broadcast of lane 0.
// CHECK: gpu.func @l2_rrowsw(
// CHECK: gpu.shuffle down
// CHECK: gpu.shuffle idx
// Columns: 32 x 8 threads, rows merged through shared memory.
// CHECK: gpu.func @l2_rcols(%{{.*}}: memref<?x?x?xf32, strided<[?, ?, 1], offset: ?>>, %{{.*}}: memref<?x?xf32, strided<[?, ?], offset: ?>>,
// CHECK: gpu.func @l2_rgeneral(%{{.*}}: memref<?x?x?x?x?x?x?x?xf32, strided<[?, ?, ?, ?, ?, ?, ?, ?], offset: ?>>, %{{.*}}: memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>,
// Host functions with the same parameters.
// CHECK: func.func @l2_rrows(%{{.*}}: memref<?x?xf32, strided<[?, 1], offset: ?>>, {{.*}} attributes {kiln.host_variant = "l2_rrows"}
// CHECK: scf.while
// CHECK: func.func @l2_rcols(
// CHECK: func.func @l2_rgeneral(
