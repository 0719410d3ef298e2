module attributes {osc.model = "bad-sparse"} {
  func.func @main(%x: tensor<4x8xf32> {osc.name = "x"}) -> (tensor<4x2xf32> {osc.name = "y"}) {
    %p = osc.constant dense<7> : tensor<256xi8>
    %y = osc.sparse_inner_product %x, %p {block_sparsity = 0.5 : f64, weight_sparsity = 0.5 : f64, nonzero_blocks = 2 : i64, weight_shape = array<i64: 2, 8>} : (tensor<4x8xf32>, tensor<256xi8>) -> tensor<4x2xf32>
    return %y : tensor<4x2xf32>
  }
}
