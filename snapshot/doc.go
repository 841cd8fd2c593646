// Package snapshot implements the PipeWhy snapshot contract C5 version 1.0: a local,
// immutable, checksummed store of snapshots, each one explicitly versioned source
// scope (its Metadata) and a set of named integer arrays. It is the Go form of the
// contract's LocalSnapshotStore.
//
// # Layout
//
// A store is a directory on one local filesystem:
//
//	root/
//	├── snapshots/                       published snapshots only, each complete
//	│   └── <id>/                        32 lowercase hex, never a user path
//	│       ├── intent.json              names <id>; written first, kept by the rename
//	│       ├── array-<key>.bin          one per array: raw little-endian elements
//	│       ├── manifest.json            canonical JSON, below
//	│       └── complete.sha256          SHA-256 of manifest.json: 64 hex + "\n"
//	└── staging/
//	     └── <id>-<16 hex>/               one attempt; the same files while being written
//
// Array keys match [a-z][a-z0-9_]{0,63}; the file of key k is "array-k.bin", which
// avoids case and path aliasing and Windows reserved base names. A payload is exactly
// count × width bytes, the elements in little-endian order, with no header and no
// padding. The dtypes are int8, int16, int32, int64, uint8, uint16, uint32 and uint64.
// intent.json is {"format":"pipewhy.snapshot.intent","snapshot_id":"<id>","version":1}.
// Published directories hold exactly the files above: anything missing or extra is an
// integrity failure.
//
// # Manifest
//
// manifest.json is UTF-8 JSON in canonical form: keys sorted by code point, no
// whitespace, characters outside ASCII written as themselves (never \u escapes, and
// no HTML escaping of <, > and &), only '"', '\\' and control characters escaped (as
// \b \f \n \r \t or \u00xx, lowercase hex), no NaN or infinities, no trailing newline;
// exactly Python's json.dumps(sort_keys=True, separators=(",", ":"),
// ensure_ascii=False, allow_nan=False). Every field set is exact. Shown here indented
// and in schema order for reading:
//
//	{
//	  "format": "pipewhy.snapshot",          string, exactly this
//	  "version": 1,                          JSON integer, exactly 1
//	  "array_schema_version": "1.0",         string: C1 array schema 1.0
//	  "snapshot": {
//	     "snapshot_id": "<32 hex>",
//	     "parent_id": null | "<32 hex>",      a published snapshot, never snapshot_id
//	     "source_namespace": "…",             nonempty UTF-8 strings
//	     "source_version": "…",
//	     "source_consistency": "…",
//	     "scope": "…",
//	     "started_at_ns": "<uint64>",         decimal strings, Unix epoch ns,
//	     "finished_at_ns": "<uint64>",        finished >= started
//	     "resolution": "dataset" | "record" | "value",
//	     "coverage": {
//	       "status": "COMPLETE" | "PARTIAL" | "UNAVAILABLE",
//	       "expected_records": null | "<uint64>",   null is unknown, distinct from "0"
//	       "returned_records": "<uint64>",
//	       "failure_reasons": ["…", …]              nonempty UTF-8 strings
//	     },
//	     "fingerprint_context": {
//	       "algorithm_name": "…", "algorithm_id": "…", "context_id": "…",
//	       "profile_id": "…", "source_schema_id": "…", "mode": "…"   nonempty UTF-8
//	     }
//	  },
//	  "arrays": {
//	     "<key>": {
//	       "file": "array-<key>.bin",
//	       "dtype": "int8" | … | "uint64",
//	       "count": "<uint64>",
//	       "byte_length": "<uint64>",           count × dtype width
//	       "endianness": "little",
//	       "sha256": "<64 hex>"                 of the payload's exact bytes
//	     }
//	  }
//	}
//
// A <uint64> is a decimal string without sign or leading zeros, at most 2^64-1; only
// "version" is a JSON number. Coverage rules: COMPLETE needs a known expected count
// equal to returned and no failure reasons; PARTIAL needs failure reasons and, when
// expected is known, returned <= expected; UNAVAILABLE needs failure reasons and
// returned = 0. Readers reject, before using anything: invalid UTF-8, malformed JSON,
// duplicate keys, unknown or missing fields, a JSON type other than the one above
// (no bool, float or number-for-string coercion), malformed IDs, hashes or decimal
// strings, unsupported format, version, array schema version, dtype or endianness,
// metadata that breaks a rule above, and any manifest that is not byte-for-byte the
// canonical encoding of what it decodes to.
//
// # Publication
//
// Publish follows the PW-07.04 state machine; phases are those InspectIncomplete
// reports for an attempt left in staging:
//
//	(1) validate metadata, keys, arrays, fingerprint context    → nothing written yet
//	    and parent; reject an already published ID
//	(2) mkdir staging/<id>-<random>, fsync staging/;            → UNAVAILABLE or INVALID
//	    write + fsync intent.json                                 (until intent.json is whole)
//	(3) write + fsync each array-<key>.bin, then manifest.json  → STAGING
//	(4) read back and validate manifest and every payload;
//	    write + fsync complete.sha256, fsync the attempt dir    → VALIDATED
//	(5) validate the complete package; rename the attempt to
//	    snapshots/<id> without replacing anything (renameat2
//	    RENAME_NOREPLACE on Linux); fsync snapshots/, staging/  → published
//
// An attempt whose bytes fail validation is INVALID. Only the rename makes a snapshot
// visible, so readers never see a partial snapshot, and no reader follows staging
// paths. A failure before the rename returns an error naming the kept attempt; nothing
// is retried or deleted, and a retry makes a new attempt. A failure after the rename
// (a directory fsync) returns ErrCommitUncertain: the snapshot may be published and
// durable or not; inspect the exact ID before any new action, and never overwrite it.
// Of concurrent writers of one ID, at most one publishes; the others get an error
// matching fs.ErrExist and their attempts stay in staging, VALIDATED.
//
// # Reading
//
// Open and Verify check, in order: complete.sha256 is 64 lowercase hex and a newline;
// manifest.json hashes to it; the manifest decodes as above and names the directory's
// ID; Options.VerifyContext accepts the fingerprint context; the directory holds
// exactly intent.json (naming the ID), the manifest, the marker and the manifest's
// payloads, all regular files; each payload's size equals its byte_length; each
// payload's SHA-256 matches. Open returns owned copies: Arrays are immutable and
// Metadata is a fresh copy. OpenArrays does the same for the arrays a reader asks for
// and checks only the sizes of the others (their payloads are not read). List does the
// same as Verify for every published snapshot and fails as a whole on the first bad
// one. InspectIncomplete only reads.
//
// # Guarantees and non-guarantees
//
// Guaranteed, on a local filesystem with atomic directory rename: a published
// snapshot is never modified or replaced by this package; a process killed at any
// point leaves either no snapshot or a complete one, plus inspectable attempts; files
// are fsynced before the rename and directories after it on POSIX. Checksums detect
// accidental corruption; they do not authenticate: someone who can rewrite a payload,
// the manifest and complete.sha256 together is not detected. Not claimed: durability
// across power loss or machine failure (not qualified), remote or network
// filesystems, cross-filesystem renames (they fail), adversarial concurrent mutation
// of the store, and on Windows any directory-fsync durability (there is no standard
// equivalent; only process interruption and visibility are covered). Inspection is
// advisory under concurrent publication. The store itself retains every published
// snapshot: it never prunes, promotes staged attempts or rewrites anything to recover.
// Deleting a published snapshot is an explicit action, Remove, whose caller's policy
// decides what may go (package retention): it refuses a snapshot directory that is a
// symbolic link or resolves outside root/snapshots, renames the snapshot into
// root/staging as a claimed entry (<id>-<16 hex>.removing) and fsyncs both directories
// before it deletes a file, so a killed removal leaves the snapshot whole and published,
// or unpublished with its remains in staging. The one cleanup of staging is explicit: RemoveStaging deletes staged attempts (what
// interrupted or failed writers left in root/staging), only directories named like
// attempts directly in root/staging, never following a symbolic link, each claimed by a
// rename within root/staging before its files go, so a writer still at its rename fails
// instead of publishing a half-deleted package. Staging lists what is there cheaply
// (sizes and modification times, nothing read). A child snapshot records its parent ID but opening it
// never needs the parent. Open reads whole payloads into memory; VerifyArrays then
// ReadArray read chosen payloads as streams (the stored bytes' checksums verified in a
// first pass, then the payloads read from start to end), in memory independent of their
// size. A zstd-blocks payload is decoded once, by the second pass, which checks its
// logical SHA-256 when it ends (ArrayReader.End): the split of PW-C5Z.04 in
// docs/contracts/C5-compressed.md, whose consumer reports nothing until End passes.
//
// # Streamed writing
//
// Create starts the same state machine with the ID alone: phase 2 (attempt and intent)
// happens at once, the payloads are written as append-only streams (Writer.Append, their
// SHA-256 computed as they are written) or whole (Writer.Put), and Writer.Commit
// validates the metadata, fingerprint context and parent, then runs phases 3 to 5 on
// what was written. Publish is Create, Put of every array and Commit, with the same
// filesystem operations in the same order. A writer may keep scratch files in the
// attempt's spill/ directory (CreateSpill: an out-of-core sort's runs); Commit removes
// it before the completion marker, so no package ever holds it, and Abort removes it
// and leaves the attempt for inspection. An attempt a killed writer left may hold it:
// InspectIncomplete reports it STAGING, RemoveStaging removes it. The store checks metadata
// consistency, not source truth: C1 table validators and C3 state checks
// (FingerprintState from words) remain the consumer's job after Open.
//
// # Compressed payloads (version 2)
//
// Options.Compress makes a store write the PipeWhy extension C5-compressed
// (docs/contracts/C5-compressed.md): manifest "version" 2, whose array entries add
// "encoding" ("raw" or "zstd-blocks"), "stored_length" and "stored_sha256" (the size
// and SHA-256 of the file), while "byte_length" and "sha256" keep describing the
// logical little-endian bytes, as in version 1. A zstd-blocks file is a sequence of
// blocks, each an 8-byte header (uint32 raw_length, uint32 frame_length, little-endian)
// and zstd frames decoding to raw_length bytes (at most 4 MiB). Writers compress block
// by block as they stream and readers decode block by block, so memory stays one block
// whatever the payload's size; Verify, Open, OpenArrays, Stat, List and ReadArray read
// both versions, a malformed or truncated block is a *StorageIntegrityError, and
// version 1 snapshots are read and written exactly as before.
//
// # Errors
//
// Stored bytes that fail a check give a *StorageIntegrityError whose Path names the
// file (never an empty result). Everything else is an *Error with a stable Code, the
// operation, the path and the field: a missing ID matches fs.ErrNotExist, an already
// published ID fs.ErrExist, invalid caller input ErrInvalid, and a failure after the
// rename ErrCommitUncertain. Messages never include metadata or array values.
package snapshot
