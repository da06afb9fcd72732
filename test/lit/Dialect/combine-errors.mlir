// kiln.combine's verifier: arity and types per kind.
// RUN: %kiln-opt %s --split-input-file --verify-diagnostics

func.func @wrong_state(%a: f32, %x: i32) -> f32 {
  // expected-error @+1 {{'sum' of 'i32' has state ('i32'), but the accumulator is ('f32')}}
  %s = kiln.combine <sum> (%a), (%x) : (f32), (i32)
  return %s : f32
}

// -----

func.func @argmax_needs_index(%a: f32, %i: i64, %x: f32) -> f32 {
  // expected-error @+1 {{'argmax' takes 2 value(s), got 1}}
  %v, %j = kiln.combine <argmax> (%a, %i), (%x) : (f32, i64), (f32)
  return %v : f32
}

// -----

func.func @welford_of_ints(%m: i32, %m2: i32, %n: i64, %x: i32) -> i32 {
  // expected-error @+1 {{'welford' does not reduce values of type 'i32'}}
  %a, %b, %c = kiln.combine <welford> (%m, %m2, %n), (%x) : (i32, i32, i64), (i32)
  return %a : i32
}

// -----

func.func @all_of_floats(%a: f32, %x: f32) -> f32 {
  // expected-error @+1 {{'all' does not reduce values of type 'f32'}}
  %s = kiln.combine <all> (%a), (%x) : (f32), (f32)
  return %s : f32
}

// -----

func.func @logsumexp_of_ints(%m: i32, %s: i32, %x: i32) -> i32 {
  // expected-error @+1 {{'logsumexp' does not reduce values of type 'i32'}}
  %a, %b = kiln.combine <logsumexp> (%m, %s), (%x) : (i32, i32), (i32)
  return %a : i32
}
