// The exported program: a golden plan for a small model, the manifest's
// hashes, and the contract check at export.
// RUN: rm -rf %t && mkdir -p %t
// RUN: cd %S/Inputs && rvnn-opt tiny.mlir --rvnn-compile --rvnn-export-plan=dir=%t/tiny > /dev/null
// RUN: diff -u %S/Inputs/tiny.plan.json %t/tiny/plan.json
// The manifest lists the plan with its SHA-256 (first line: sha256sum's).
// RUN: sha256sum %t/tiny/plan.json > %t/hash
// RUN: cat %t/hash %t/tiny/manifest.json | FileCheck %s --check-prefix=MANIFEST
// Every op of every exported model is a contract op.
// RUN: grep '"op": "' %t/tiny/plan.json | not grep -v '"op": "rvnn_exec\.'
// A module that was not lowered is refused, op by op, and nothing is written.
// RUN: not rvnn-opt %S/Inputs/tiny.mlir --rvnn-front --rvnn-export-plan=dir=%t/front 2>&1 | FileCheck %s --check-prefix=REFUSED
// RUN: not test -e %t/front

// MANIFEST: [[SHA:[0-9a-f]+]] {{.*}}plan.json
// MANIFEST: "files": [
// MANIFEST: "path": "plan.json"
// MANIFEST-NEXT: "role": "plan"
// MANIFEST-NEXT: "sha256": "[[SHA]]"
// MANIFEST: "format": "rvnn-compiled-model"
// MANIFEST: "version": 3

// REFUSED: tiny.mlir:3:1: error: 'rvnn.param' is outside the execution contract (rvnn_exec)
// REFUSED: error: 'func.func' is outside the execution contract (rvnn_exec)
