// kiln-generate-variants on a fused f32 kernel: the GPU and host variants,
// their ABI signatures (operands as memrefs, then scalars), 16-byte vector
// accesses with a scalar tail in _contig, delinearized strided loops.
// RUN: %kiln-opt %s --kiln-generate-variants | %FileCheck %s

#id = affine_map<(i) -> (i)>

func.func @axpy(%x: tensor<?xf32>, %y: tensor<?xf32>, %a: f32) -> tensor<?xf32> attributes {kiln.kernel} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]}
      ins(%x, %y : tensor<?xf32>, tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%xi: f32, %yi: f32, %o: f32):
    %m = arith.mulf %a, %xi : f32
    %s = arith.addf %m, %yi : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// CHECK: module attributes {gpu.container_module}
// CHECK: gpu.module @kiln_kernels
// CHECK: gpu.func @axpy_contig(%[[X:.*]]: memref<?xf32, strided<[1], offset: ?>>, %[[Y:.*]]: memref<?xf32, strided<[1], offset: ?>>, %[[O:.*]]: memref<?xf32, strided<[1], offset: ?>>, %[[A:.*]]: f32) kernel attributes {kiln.programmatic_launch}
// CHECK-DAG: gpu.block_id x
// CHECK-DAG: gpu.grid_dim x
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: scf.for %[[V:.*]] = %{{.*}} to %{{.*}} step %[[STRIDE:[^ ]*]] {
// CHECK: %[[BASE:.*]] = arith.muli %[[V]], %[[C4]]
// CHECK: vector.load %[[X]][%[[BASE]]] {alignment = 16 : i64} {{.*}} vector<4xf32>
// CHECK: vector.load %[[Y]][%[[BASE]]] {alignment = 16 : i64} {{.*}} vector<4xf32>
// CHECK-COUNT-4: arith.mulf %[[A]]
// CHECK: vector.store %{{.*}}, %[[O]][%[[BASE]]] {alignment = 16 : i64}
// The scalar tail: the last n % 4 elements.
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %[[STRIDE]] {
// CHECK: memref.load %[[X]][%[[I]]]
// CHECK: memref.store %{{.*}}, %[[O]][%[[I]]]
// CHECK: gpu.return

// CHECK: gpu.func @axpy_strided1(%{{.*}}: memref<?xf32, strided<[?], offset: ?>>, %{{.*}}: memref<?xf32, strided<[?], offset: ?>>, %{{.*}}: memref<?xf32, strided<[?], offset: ?>>, %{{.*}}: f32) kernel
// CHECK-NOT: arith.divui
// CHECK: gpu.return

// Rank 2 stages the tile (4096 elements: 64 x 64, or fewer columns or rows
// where the walk is narrow or shallow; padded by a
// column) of each input read across the walk -- a nonzero outer stride
// smaller than the inner one, decided at run time -- in dynamic shared
// memory, packed in input order while the tiles fit 99 KiB; the other
// inputs are read directly, row by row, as the outputs are written. 512-thread blocks (8
// elements a thread; the runtime reads the size back), two blocks a
// multiprocessor (.minnctapersm 2).
// CHECK: gpu.func @axpy_strided2(%{{.*}}: memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK-NOT: workgroup(
// CHECK-SAME: kernel attributes {kiln.programmatic_launch, known_block_size = array<i32: 512, 1, 1>, nvvm.minctasm = 2 : i32}
// CHECK: arith.cmpi ult, %{{.*}}, %c64
// CHECK: %[[DYN:.*]] = gpu.dynamic_shared_memory
// CHECK: memref.extract_strided_metadata %arg0
// CHECK: %[[ACROSS0:.*]] = arith.cmpi ult
// CHECK: %[[NONZERO0:.*]] = arith.andi %{{.*}}, %[[ACROSS0]]
// CHECK: %[[FITS0:.*]] = arith.cmpi ule, %{{.*}}, %c101376
// CHECK: %[[STAGED0:.*]] = arith.andi %[[NONZERO0]], %[[FITS0]]
// CHECK: %[[T0:.*]] = memref.view %[[DYN]][%{{.*}}][%{{.*}}] : memref<?xi8, #gpu.address_space<workgroup>> to memref<?xf32, #gpu.address_space<workgroup>>
// CHECK: %[[USED:.*]] = arith.select %[[STAGED0]]
// CHECK: memref.view %[[DYN]][%[[USED]]]
// CHECK: scf.for
// CHECK: scf.if %[[STAGED0]] {
// CHECK-COUNT-8: memref.load %{{.*}} : memref<?xf32>
// CHECK-COUNT-8: memref.store %{{.*}}, %[[T0]]
// CHECK: gpu.barrier
// CHECK: scf.if %[[STAGED0]] -> (f32, f32, f32, f32, f32, f32, f32, f32) {
// CHECK-COUNT-8: memref.load %[[T0]]
// CHECK: } else {
// CHECK-COUNT-8: memref.load %{{.*}} : memref<?xf32>
// CHECK: arith.mulf
// CHECK-NEXT: arith.addf
// CHECK-NEXT: memref.store %{{.*}} : memref<?xf32>
// A tile at the edge: past it the tile's first element is read and nothing
// is written.
// CHECK: } else {
// CHECK: arith.select
// CHECK: gpu.barrier
// CHECK: arith.mulf
// CHECK: scf.if
// CHECK-NEXT: memref.store %{{.*}} : memref<?xf32>
// CHECK: gpu.barrier
// 3-d and 4-d: the linear index is split with remainders and divisions.
// CHECK: gpu.func @axpy_strided3
// CHECK: arith.remui
// CHECK: gpu.func @axpy_strided4(%{{.*}}: memref<?x?x?x?xf32, strided<[?, ?, ?, ?], offset: ?>>

// Rows: rank 2; outputs have a unit inner stride, inputs an inner stride of
// 1 or 0 (a column broadcast: one scalar load splat across the vector, else
// a vector load through a unit-stride view); one division per vector.
// CHECK: gpu.func @axpy_rows(%{{.*}}: memref<?x?xf32, strided<[?, ?], offset: ?>>, %{{.*}}: memref<?x?xf32, strided<[?, ?], offset: ?>>, %{{.*}}: memref<?x?xf32, strided<[?, 1], offset: ?>>, %{{.*}}: f32)
// CHECK: memref.extract_strided_metadata
// CHECK: memref.reinterpret_cast {{.*}} to memref<?x?xf32, strided<[?, 1], offset: ?>>
// CHECK: scf.for %[[Q:.*]] = {{.*}} : i32 {
// CHECK: arith.divui %[[Q]]
// CHECK: scf.if {{.*}} -> (vector<4xf32>)
// CHECK: memref.load
// CHECK: vector.broadcast
// CHECK: } else {
// CHECK: vector.load {{.*}} : memref<?x?xf32, strided<[?, 1], offset: ?>>, vector<4xf32>
// CHECK: vector.store

// Host variants: same names and parameters, plain loops.
// CHECK: func.func @axpy_contig(%{{.*}}: memref<?xf32, strided<[1], offset: ?>>, %{{.*}}: memref<?xf32, strided<[1], offset: ?>>, %{{.*}}: memref<?xf32, strided<[1], offset: ?>>, %{{.*}}: f32) attributes {kiln.host_variant = "contig"}
// CHECK: scf.for
// CHECK-NOT: vector.load
// CHECK: return
// CHECK: func.func @axpy_strided1({{.*}} attributes {kiln.host_variant = "strided1"}
// Host rank >= 2: the last two dimensions walk 32 x 32 tiles, or 128 rows x
// 8 columns when an operand's last stride is neither 1 nor 0 (a transposed
// view), or, when every operand runs along rows or columns (a transpose),
// 512 x 16 tiles whose rows go 8 at a time through 8 x 8 blocks; no division.
// CHECK: func.func @axpy_strided2({{.*}} attributes {kiln.host_variant = "strided2"}
// CHECK: %[[ONE:.*]] = arith.constant 1 : index
// CHECK: memref.extract_strided_metadata
// CHECK: arith.cmpi ne, %{{.*}}, %[[ONE]] : index
// CHECK: arith.ori
// Each operand's 8 x 8 block along its rows, or along its columns: the view
// with the last two dimensions swapped, unit inner stride.
// CHECK: %[[ALONG_ROWS:[a-z_0-9]+]] = memref.reinterpret_cast %[[BASE:[a-z_0-9]+]] to offset: [%[[OFF:[a-z_0-9]+]]], sizes: [%[[SIZES:[a-z_0-9]+]]#0, %[[SIZES]]#1], strides: [%[[STRIDES:[a-z_0-9]+]]#0, 1]
// CHECK-NEXT: %[[ALONG_COLS:[a-z_0-9]+]] = memref.reinterpret_cast %[[BASE]] to offset: [%[[OFF]]], sizes: [%[[SIZES]]#1, %[[SIZES]]#0], strides: [%[[STRIDES]]#1, 1]
// A transpose (every operand along rows or columns) walks tiles of 512 x 16.
// CHECK: %[[C128:.*]] = arith.constant 128 : index
// CHECK: %[[ROWS:.*]] = arith.select %[[NARROW:.*]], %[[C128]], %{{.*}} : index
// CHECK: %[[C512:.*]] = arith.constant 512 : index
// CHECK: %[[BROWS:.*]] = arith.select %[[BLOCKED:.*]], %[[C512]], %[[ROWS]] : index
// CHECK: %[[C8:.*]] = arith.constant 8 : index
// CHECK: %[[COLS:.*]] = arith.select %[[NARROW]], %[[C8]], %{{.*}} : index
// CHECK: %[[C16:.*]] = arith.constant 16 : index
// CHECK: %[[BCOLS:.*]] = arith.select %[[BLOCKED]], %[[C16]], %[[COLS]] : index
// CHECK: scf.for %[[R0:.*]] = {{.*}} step %[[BROWS]]
// CHECK: scf.for %[[C0:.*]] = {{.*}} step %[[BCOLS]]
// CHECK: arith.minui
// Tiles with whole columns: their rows 8 at a time in 8 x 8 blocks, 8 vector
// loads an input (then a transpose in registers where it runs along
// columns), 8 vector stores an output; the rows left element by element.
// CHECK: %[[C8B:.*]] = arith.constant 8 : index
// CHECK: scf.for %[[RB:.*]] = %[[R0]] to %[[SPLIT:.*]] step %[[C8B]] {
// CHECK: scf.for %[[CB:.*]] = %[[C0]] to {{.*}} step %[[C8B]] {
// CHECK: scf.if {{.*}} -> (vector<8x8xf32>)
// CHECK-COUNT-8: vector.load %[[ALONG_ROWS]]{{.*}} vector<8xf32>
// CHECK: } else {
// CHECK-COUNT-8: vector.load %[[ALONG_COLS]]{{.*}} vector<8xf32>
// CHECK: vector.transpose %{{.*}}, [1, 0] : vector<8x8xf32> to vector<8x8xf32>
// The body on whole rows of the block (computeVectors): a splat, then the
// multiply and add once a row.
// CHECK: vector.broadcast %{{.*}} : f32 to vector<8xf32>
// CHECK-COUNT-8: arith.mulf %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK-COUNT-8: vector.store {{.*}} vector<8xf32>
// CHECK: } else {
// CHECK: vector.transpose
// CHECK-COUNT-8: vector.store {{.*}} vector<8xf32>
// CHECK: scf.for %{{.*}} = %[[SPLIT]] to
// CHECK: scf.for
// CHECK-NOT: arith.divui
// CHECK: func.func @axpy_strided3
// CHECK-SAME: attributes {kiln.host_variant = "strided3"}
// CHECK: func.func @axpy_strided4({{.*}} attributes {kiln.host_variant = "strided4"}
// CHECK: func.func @axpy_rows({{.*}}strided<[?, 1], offset: ?>>{{.*}} attributes {kiln.host_variant = "rows"}
