// Command mutate is the mutation tester of scripts/mutate.sh (method and results in
// docs/testing.md). It applies gremlins' default operators (conditionals-boundary,
// conditionals-negation, arithmetic-base, increment-decrement, invert-negatives) to one
// package of the main module by mutant schemata: every site is rewritten, in one copy of
// the package passed to the compiler with `go test -overlay`, into a call of
// internal/mutant that computes the original expression unless the process's
// PIPEWHY_MUTANT names that site's mutant:
//
//	a > b   ->  mutant.Gt(17, a, b)            17: a >= b, 18: a <= b
//	a == b  ->  ((a == b) != mutant.On(19))    19: a != b
//	a + b   ->  mutant.Add(20, a, b)           20: a - b
//	i++     ->  i = mutant.Inc(21, i)          21: i-- (mutant.IncP(21, &x) for x.f, s[i];
//	                                            an if statement for a map element)
//	-x      ->  mutant.Neg(22, x)              22: x
//
// so the package's test binary is built once, and a mutant costs a run of the tests that
// reach it instead of a build. Operands stay ordinary call arguments: each is evaluated
// once, in the original order, and the mutated operator is applied as such (a float NaN
// compares as the mutated source would). The rewrite edits the source text, so that line
// numbers stay those of the original file.
//
// Unlike gremlins it mutates the conditions of switch cases and it leaves constant
// expressions alone (the compiler folds them: a mutant there is a different constant, not
// a different run-time path), and string concatenation. gremlins also gives every binary
// `-` a second, identical mutant (invert-negatives); mutate does not.
//
// Steps, per package:
//  1. load it with types (golang.org/x/tools/go/packages), non-test files only;
//  2. rewrite and build the test binary; a site whose rewrite does not compile (an untyped
//     operand that the generic helper types differently) is dropped, reported "not
//     mutable", and the build tried again;
//  3. run each top-level test alone with PIPEWHY_MUTANT_RECORD set: the ids it reaches and
//     its time (a mutant no test reaches is "not covered"; a test that fails unmutated is
//     left out and reported);
//  4. run each covered mutant's tests with -test.failfast and a timeout of
//     -timeout-coeff times their recorded time plus -margin: a failure kills the mutant, a
//     timeout too (reported apart), a pass lets it live.
//
// Usage (it belongs to the tools module, so it is built there and run in the main
// module's root):
//
//	(cd tools && go build -o /tmp/mutate ./mutate)
//	/tmp/mutate [-files "a.go b.go"] [-workers N] [-timeout-coeff 3] [-mem 8] [-o out.json] [-v] PKGDIR
//
// The test runs get an address-space limit (-mem GiB): a mutated size that allocates
// without end fails the run (and kills the mutant) instead of filling a shared machine.
//
// It prints `pkg: killed k/n (t by timeout), lived l, not covered c, not mutable m` and,
// with -o, every mutant as JSON (id, position, operator, original and mutated text,
// status, killing test).
package main
