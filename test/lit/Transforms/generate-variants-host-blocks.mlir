// The host's 8 x 8 blocks compute the fused body on whole vectors when every
// operation maps over vectors with the bits it has lane by lane: arith
// (select and comparisons included), constants splat, and float32 exp (a
// polynomial on the host). float32 sin goes to libmvec lane by lane, so its
// kernel computes the lanes one by one (vector.from_elements).
// RUN: %kiln-opt %s --kiln-generate-variants | %FileCheck %s

#id = affine_map<(i) -> (i)>

func.func @clipped_exp(%x: tensor<?xf32>) -> tensor<?xf32> attributes {kiln.kernel} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%xi: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %pos = arith.cmpf ogt, %xi, %zero : f32
    %ex = math.exp %xi : f32
    %s = arith.select %pos, %ex, %zero : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

func.func @sine(%x: tensor<?xf32>) -> tensor<?xf32> attributes {kiln.kernel} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%xi: f32, %o: f32):
    %s = math.sin %xi : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// CHECK-LABEL: func.func @clipped_exp_strided2(
// CHECK: vector.transpose
// CHECK: arith.constant dense<0.000000e+00> : vector<8xf32>
// CHECK: arith.cmpf ogt, %{{.*}}, %{{.*}} : vector<8xf32>
// CHECK: math.exp %{{.*}} : vector<8xf32>
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : vector<8xi1>, vector<8xf32>
// CHECK-NOT: vector.from_elements
// CHECK: func.func @clipped_exp_strided3(

// CHECK-LABEL: func.func @sine_strided2(
// CHECK: vector.transpose
// CHECK-COUNT-8: math.sin %{{.*}} : f32
// CHECK: vector.from_elements
// CHECK-NOT: math.sin %{{.*}} : vector<8xf32>
// CHECK: func.func @sine_strided3(
