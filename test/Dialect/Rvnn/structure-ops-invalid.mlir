// RUN: rvnn-opt %s -split-input-file -verify-diagnostics

func.func @balanced_without_arity(%mask: tensor<?x?xf32>) {
  // expected-error @below {{kind 'balanced' requires the 'arity' attribute}}
  rvnn.expose_structure <balanced> %mask : tensor<?x?xf32>
  return
}

// -----

func.func @balanced_arity_one(%mask: tensor<?x?xf32>) {
  // expected-error @below {{'arity' must be >= 2, got 1}}
  rvnn.expose_structure <balanced> %mask {arity = 1 : i64} : tensor<?x?xf32>
  return
}

// -----

func.func @arity_of_another_kind(%c: tensor<?x?xf32>) {
  // expected-error @below {{'arity' is not an attribute of kind 'composition'}}
  rvnn.expose_structure <composition> %c {arity = 2 : i64} : tensor<?x?xf32>
  return
}

// -----

func.func @factor_of_another_kind(%sel: tensor<?x5x?xf32>) {
  // expected-error @below {{'factor' is not an attribute of kind 'merge_selection'}}
  rvnn.expose_structure <merge_selection> %sel {factor = 5 : i64} : tensor<?x5x?xf32>
  return
}

// -----

func.func @factor_zero(%kept: tensor<?x5xi64>) {
  // expected-error @below {{'factor' must be >= 1, got 0}}
  rvnn.expose_structure <beam_parent> %kept {factor = 0 : i64} : tensor<?x5xi64>
  return
}

// -----

func.func @selection_rank(%sel: tensor<?x5x?x2xf32>) {
  // expected-error @below {{kind 'merge_selection' takes a tensor of rank 2 or 3, got 'tensor<?x5x?x2xf32>'}}
  rvnn.expose_structure <merge_selection> %sel : tensor<?x5x?x2xf32>
  return
}

// -----

func.func @composition_rank(%c: tensor<?x?x1xf32>) {
  // expected-error @below {{kind 'composition' takes a tensor of rank 2, got 'tensor<?x?x1xf32>'}}
  rvnn.expose_structure <composition> %c : tensor<?x?x1xf32>
  return
}

// -----

func.func @parent_element_type(%kept: tensor<?x5xf32>) {
  // expected-error @below {{kind 'beam_parent' takes i64 elements, got 'tensor<?x5xf32>'}}
  rvnn.expose_structure <beam_parent> %kept : tensor<?x5xf32>
  return
}

// -----

func.func @selection_element_type(%sel: tensor<?x5x?xi64>) {
  // expected-error @below {{kind 'merge_selection' takes float elements, got 'tensor<?x5x?xi64>'}}
  rvnn.expose_structure <merge_selection> %sel : tensor<?x5x?xi64>
  return
}

// -----

func.func @unknown_kind(%c: tensor<?x?xf32>) {
  // expected-error @below {{expected ::mlir::rvnn::StructureKind to be one of: balanced, merge_selection, beam_parent, composition, existence}}
  // expected-error @below {{failed to parse Rvnn_StructureKindAttr parameter 'value'}}
  rvnn.expose_structure <tree> %c : tensor<?x?xf32>
  return
}
