// kiln-verify-fused-kernels reports what is not in the fused form.
// RUN: %kiln-opt %s --split-input-file --kiln-verify-fused-kernels --verify-diagnostics

#id = affine_map<(i) -> (i)>

// expected-error @+1 {{kiln.kernel @unfused is not fused: it holds more than one linalg.generic}}
func.func @unfused(%x: tensor<?xf32>) -> tensor<?xf32> attributes {kiln.kernel} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = arith.negf %v : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %b = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%v: f32, %o: f32):
    %r = math.exp %v : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  return %b : tensor<?xf32>
}

// -----

// expected-error @+1 {{kiln.kernel @bad_type: argument #0 has unsupported element type 'f16'}}
func.func @bad_type(%x: tensor<?xf16>) -> tensor<?xf16> attributes {kiln.kernel} {
  return %x : tensor<?xf16>
}

// -----

// expected-error @+1 {{kiln.kernel @rank2: argument #0 must be tensor<?xT>, got 'tensor<?x?xf32>'}}
func.func @rank2(%x: tensor<?x?xf32>) -> tensor<?x?xf32> attributes {kiln.kernel} {
  return %x : tensor<?x?xf32>
}

// -----

#id = affine_map<(i) -> (i)>

func.func @uses_index(%x: tensor<?xi64>) -> tensor<?xi64> attributes {kiln.kernel} {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?xi64>
  %e = tensor.empty(%n) : tensor<?xi64>
  %a = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]}
      ins(%x : tensor<?xi64>) outs(%e : tensor<?xi64>) {
  ^bb0(%v: i64, %o: i64):
    // expected-error @+1 {{kiln.kernel @uses_index: 'linalg.index' is not supported in a fused elementwise kernel}}
    %i = linalg.index 0 : index
    %c = arith.index_cast %i : index to i64
    %r = arith.addi %v, %c : i64
    linalg.yield %r : i64
  } -> tensor<?xi64>
  return %a : tensor<?xi64>
}

// -----

func.func @reduction(%x: tensor<?xf32>) -> tensor<?xf32> attributes {kiln.kernel} {
  %init = tensor.empty() : tensor<f32>
  // expected-error @+1 {{unsupported operation 'linalg.reduce' outside the fused linalg.generic}}
  %r = linalg.reduce ins(%x : tensor<?xf32>) outs(%init : tensor<f32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %x : tensor<?xf32>
}
