// Package repo is a PipeWhy repository: the .pipewhy/ directory that holds a C5
// snapshot store, the source schema registry and an append-only scan log, found
// from the working directory like git finds .git (Find). It also defines the scan
// snapshot format (Descriptor, Scan, Load, Decode, Scan.Arrays) shared by the
// producer (package scan) and the consumer (package compare); package
// normalize/c2text renders the C2 values it holds for people. LoadParts loads a scan's
// summary with only some of its per-record Parts, LoadMore the others when needed.
//
// The layout, the arrays of a scan snapshot and the checks Load makes are specified
// in docs/scan-format.md.
//
// Invariants: writers (scans) hold Lock (flock on Unix) from reading the registry to
// appending the log line; Init writes repo.json last, so a half-created directory is not a
// repository; the log is a sequence of complete JSON lines (a torn last line is
// ignored by readers and cut by the next append); snapshot ids resolve from the
// store's directory, by full id or a unique prefix of at least MinPrefix hex digits
// (CodeUnknownID, CodeAmbiguous); Load trusts nothing it did not check (CodeFormat),
// and LoadParts checks what it reads as Load does (the arrays it does not read are
// neither trusted nor used: Scan.Missing names them).
// Every error is an *Error with a stable Code; messages carry no data values.
package repo
