func.func public @main() -> tensor<8xf32> {
  %x = stablehlo.constant dense<[-1.0e30, -2.0, -0.5, 0.0, 1.0e-5, 0.7, 1.0, 3.0e38]> : tensor<8xf32>
  %a = chlo.asinh %x : tensor<8xf32> -> tensor<8xf32>
  %b = chlo.atan %a : tensor<8xf32> -> tensor<8xf32>
  %c = chlo.sinh %b : tensor<8xf32> -> tensor<8xf32>
  %d = chlo.acosh %x : tensor<8xf32> -> tensor<8xf32>
  %e = chlo.atanh %b : tensor<8xf32> -> tensor<8xf32>
  %f = stablehlo.add %c, %e : tensor<8xf32>
  %g = chlo.cosh %f : tensor<8xf32> -> tensor<8xf32>
  %h = chlo.asin %b : tensor<8xf32> -> tensor<8xf32>
  %i = chlo.acos %h : tensor<8xf32> -> tensor<8xf32>
  %j = stablehlo.add %g, %i : tensor<8xf32>
  %k = stablehlo.add %j, %d : tensor<8xf32>
  return %k : tensor<8xf32>
}

// -----

func.func public @main() -> tensor<4xbf16> {
  %x = stablehlo.constant dense<[-3.0, 0.125, 5.0, 11.0]> : tensor<4xbf16>
  %r = chlo.cosh %x : tensor<4xbf16> -> tensor<4xbf16>
  %t = chlo.tan %r : tensor<4xbf16> -> tensor<4xbf16>
  return %t : tensor<4xbf16>
}
