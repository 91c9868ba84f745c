// RUN: rvnn-opt %s -split-input-file -verify-diagnostics

func.func @gate_old_shape(%g: tensor<4x1xf32>, %new: tensor<4x8xf32>, %old: tensor<4x9xf32>) -> tensor<4x8xf32> {
  // expected-error @below {{'old_value' type 'tensor<4x9xf32>' must have the shape of 'new_value' type 'tensor<4x8xf32>'}}
  %h = rvnn.gate %g, %new, %old : (tensor<4x1xf32>, tensor<4x8xf32>, tensor<4x9xf32>) -> tensor<4x8xf32>
  return %h : tensor<4x8xf32>
}

// -----

func.func @gate_old_element_type(%g: tensor<4x1xf32>, %new: tensor<4x8xf32>, %old: tensor<4x8xf64>) -> tensor<4x8xf32> {
  // expected-error @below {{'old_value' element type 'f64' must match 'new_value' element type 'f32'}}
  %h = rvnn.gate %g, %new, %old : (tensor<4x1xf32>, tensor<4x8xf32>, tensor<4x8xf64>) -> tensor<4x8xf32>
  return %h : tensor<4x8xf32>
}

// -----

func.func @gate_element_type(%g: tensor<4x1xf64>, %new: tensor<4x8xf32>, %old: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @below {{'g' element type 'f64' must match 'new_value' element type 'f32'}}
  %h = rvnn.gate %g, %new, %old : (tensor<4x1xf64>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %h : tensor<4x8xf32>
}

// -----

func.func @gate_rank(%g: tensor<1x4x1xf32>, %new: tensor<4x8xf32>, %old: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // expected-error @below {{'g' of type 'tensor<1x4x1xf32>' does not broadcast to 'new_value' of type 'tensor<4x8xf32>': rank 3 exceeds rank 2}}
  %h = rvnn.gate %g, %new, %old : (tensor<1x4x1xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return %h : tensor<4x8xf32>
}

// -----

func.func @gate_dim(%g: tensor<?x4xf32>, %new: tensor<?x?x8xf32>, %old: tensor<?x?x8xf32>) -> tensor<?x?x8xf32> {
  // expected-error @below {{'g' of type 'tensor<?x4xf32>' does not broadcast to 'new_value' of type 'tensor<?x?x8xf32>': dim 1 is 4, expected 1 or 8}}
  %h = rvnn.gate %g, %new, %old : (tensor<?x4xf32>, tensor<?x?x8xf32>, tensor<?x?x8xf32>) -> tensor<?x?x8xf32>
  return %h : tensor<?x?x8xf32>
}

// -----

func.func @gate_result(%g: tensor<4x1xf32>, %new: tensor<4x8xf32>, %old: tensor<4x8xf32>) -> tensor<4x1xf32> {
  // expected-error @below {{result #0 type 'tensor<4x1xf32>' is incompatible with the inferred shape 4x8}}
  %h = rvnn.gate %g, %new, %old : (tensor<4x1xf32>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x1xf32>
  return %h : tensor<4x1xf32>
}

// -----

func.func @cumax_dim(%x: tensor<?x?x30xf32>) -> tensor<?x?x30xf32> {
  // expected-error @below {{dim 3 is out of range for rank 3 (expected 0 <= dim < 3)}}
  %f = rvnn.cumax %x {dim = 3 : i64} : (tensor<?x?x30xf32>) -> tensor<?x?x30xf32>
  return %f : tensor<?x?x30xf32>
}

// -----

func.func @cumax_negative_dim(%x: tensor<?x30xf32>) -> tensor<?x30xf32> {
  // expected-error @below {{dim -1 is out of range for rank 2 (expected 0 <= dim < 2)}}
  %f = rvnn.cumax %x {dim = -1 : i64} : (tensor<?x30xf32>) -> tensor<?x30xf32>
  return %f : tensor<?x30xf32>
}

// -----

func.func @cumax_result(%x: tensor<?x30xf32>) -> tensor<?x31xf32> {
  // expected-error @below {{result #0 type 'tensor<?x31xf32>' is incompatible with the inferred shape ?x30}}
  %f = rvnn.cumax %x {dim = 1 : i64} : (tensor<?x30xf32>) -> tensor<?x31xf32>
  return %f : tensor<?x31xf32>
}

// -----

func.func @soft_depth_mix_shallow(%alpha: tensor<?x1xf32>, %deep: tensor<?x256xf32>, %shallow: tensor<?x?x256xf32>) -> tensor<?x256xf32> {
  // expected-error @below {{'shallow' type 'tensor<?x?x256xf32>' must have the shape of 'deep' type 'tensor<?x256xf32>'}}
  %f = rvnn.soft_depth_mix %alpha, %deep, %shallow : (tensor<?x1xf32>, tensor<?x256xf32>, tensor<?x?x256xf32>) -> tensor<?x256xf32>
  return %f : tensor<?x256xf32>
}

// -----

func.func @soft_depth_mix_alpha_type(%alpha: tensor<?x1xf64>, %deep: tensor<?x256xf32>, %shallow: tensor<?x256xf32>) -> tensor<?x256xf32> {
  // expected-error @below {{'alpha' element type 'f64' must match 'deep' element type 'f32'}}
  %f = rvnn.soft_depth_mix %alpha, %deep, %shallow : (tensor<?x1xf64>, tensor<?x256xf32>, tensor<?x256xf32>) -> tensor<?x256xf32>
  return %f : tensor<?x256xf32>
}

// -----

func.func @soft_depth_mix_alpha_dim(%alpha: tensor<2x1xf32>, %deep: tensor<3x256xf32>, %shallow: tensor<3x256xf32>) -> tensor<3x256xf32> {
  // expected-error @below {{'alpha' of type 'tensor<2x1xf32>' does not broadcast to 'deep' of type 'tensor<3x256xf32>': dim 0 is 2, expected 1 or 3}}
  %f = rvnn.soft_depth_mix %alpha, %deep, %shallow : (tensor<2x1xf32>, tensor<3x256xf32>, tensor<3x256xf32>) -> tensor<3x256xf32>
  return %f : tensor<3x256xf32>
}

// -----

func.func @soft_depth_mix_alpha_rank(%alpha: tensor<1x1x1xf32>, %deep: tensor<3x256xf32>, %shallow: tensor<3x256xf32>) -> tensor<3x256xf32> {
  // expected-error @below {{'alpha' of type 'tensor<1x1x1xf32>' does not broadcast to 'deep' of type 'tensor<3x256xf32>': rank 3 exceeds rank 2}}
  %f = rvnn.soft_depth_mix %alpha, %deep, %shallow : (tensor<1x1x1xf32>, tensor<3x256xf32>, tensor<3x256xf32>) -> tensor<3x256xf32>
  return %f : tensor<3x256xf32>
}

// -----

func.func @soft_depth_mix_result(%alpha: tensor<?x1xf32>, %deep: tensor<3x256xf32>, %shallow: tensor<?x256xf32>) -> tensor<4x256xf32> {
  // expected-error @below {{result #0 type 'tensor<4x256xf32>' is incompatible with the inferred shape 3x256}}
  %f = rvnn.soft_depth_mix %alpha, %deep, %shallow : (tensor<?x1xf32>, tensor<3x256xf32>, tensor<?x256xf32>) -> tensor<4x256xf32>
  return %f : tensor<4x256xf32>
}
