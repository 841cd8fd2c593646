// Package mutant is the run-time switch of mutation testing (tools/mutate, docs/testing.md).
//
// tools/mutate rewrites every mutation site of one package into a call of this package
// (mutant schemata): `a > b` becomes `mutant.Gt(17, a, b)`, which is `a > b` unless mutant
// 17 or 18 is the active one. The package's test binary is then built once and each mutant
// is a run of it with PIPEWHY_MUTANT set to its id, instead of a build of its own.
//
// No code on disk imports this package: the rewritten files reach the compiler through
// `go test -overlay` only. With PIPEWHY_MUTANT unset every helper computes the original
// expression; operands are evaluated by the caller, once and in the original order, since
// they are ordinary call arguments.
//
// PIPEWHY_MUTANT_RECORD=FILE is the coverage mode: each id reached is appended to FILE,
// once per process, so that a mutant runs only the tests that reach it.
package mutant
