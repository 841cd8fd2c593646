// Package testenv decides what a test does when the machine lacks something it needs: an
// external tool, a database server, the project's shared specifications, observable
// huge pages, an AVX2 processor, a headless browser. On a developer's machine the test
// is skipped with the reason; where the matching PIPEWHY_REQUIRE_* variable is "1", as
// .ci/run sets every one of them, it fails instead, so that nothing is skipped silently
// in CI.
//
// It is imported by tests only (internal/layering_test.go enforces it). It also gives the
// addresses of the database servers the tests use, so that every test talks to the same
// ones.
package testenv
