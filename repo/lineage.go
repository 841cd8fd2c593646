package repo

import (
	"bytes"
	"encoding/json"
	"errors"

	"github.com/pipewhy/pipewhy/snapshot"
)

// KeyLineage is the optional uint8 array of a scan snapshot that records the lineage in
// force when the artifact was scanned (ScanLineage as UTF-8 JSON). Scans published before
// any lineage was recorded do not have it.
const KeyLineage = "lineage"

// Scan lineage format identifiers (docs/scan-format.md).
const (
	ScanLineageFormat  = "pipewhy.scan-lineage"
	ScanLineageVersion = 1
)

// ScanLineage is what a scan records of the lineage in force: the lineage version and,
// for every TRANSFORM or DERIVED edge group into the scanned artifact that declares a
// transform, the transform's identity at scan time (a file's SHA-256, or a literal
// version id). Comparing two scans' records says whether the transform changed between
// the two runs, never today's file against an old run.
type ScanLineage struct {
	Format     string         `json:"format"`  // ScanLineageFormat
	Version    int            `json:"version"` // ScanLineageVersion
	Lineage    string         `json:"lineage"` // the lineage version (32 hex snapshot id)
	Aligned    []string       `json:"aligned"` // COPY neighbours whose field ids new columns took
	Transforms []TransformRun `json:"transforms"`
}

// TransformRun is the identity of one declared transform when its target was scanned.
type TransformRun struct {
	Sources  []string `json:"sources"`  // the edge group's sources, ascending
	Relation string   `json:"relation"` // "transform" or "derived"
	Kind     string   `json:"kind"`     // "file" or "literal"
	Ref      string   `json:"ref"`      // the declared file (relative to the project) or literal
	Identity string   `json:"identity"` // "sha256:<64 hex>" of the file, or the literal; "" with Error
	Error    string   `json:"error"`    // why the identity could not be taken (file missing), else ""
}

func (l *ScanLineage) validate() error {
	if l.Format != ScanLineageFormat || l.Version != ScanLineageVersion {
		return errors.New("unsupported scan lineage format or version")
	}
	if _, err := snapshot.ParseID(l.Lineage); err != nil {
		return errors.New("malformed lineage version id")
	}
	if l.Aligned == nil || l.Transforms == nil {
		return errors.New("aligned and transforms are required")
	}
	for _, t := range l.Transforms {
		switch {
		case len(t.Sources) == 0:
			return errors.New("a transform record without sources")
		case t.Relation != "transform" && t.Relation != "derived":
			return errors.New("a transform record's relation is not transform or derived")
		case t.Kind != "file" && t.Kind != "literal":
			return errors.New("a transform record's kind is not file or literal")
		case t.Ref == "":
			return errors.New("a transform record without ref")
		case (t.Identity == "") == (t.Error == ""):
			return errors.New("a transform record needs exactly one of identity and error")
		}
	}
	return nil
}

func encodeScanLineage(l *ScanLineage) (snapshot.Array, error) {
	c := *l
	c.Format, c.Version = ScanLineageFormat, ScanLineageVersion
	if err := c.validate(); err != nil {
		return snapshot.Array{}, &Error{Code: CodeFormat, Op: "encode", Msg: "scan lineage", Err: err}
	}
	js, err := json.Marshal(c)
	if err != nil {
		return snapshot.Array{}, &Error{Code: CodeFormat, Op: "encode", Msg: "scan lineage", Err: err}
	}
	return snapshot.FromUint8(js), nil
}

func decodeScanLineage(snap *snapshot.Snapshot) (*ScanLineage, error) {
	if _, ok := snap.Arrays[KeyLineage]; !ok {
		return nil, nil
	}
	js, err := getU8(snap, KeyLineage)
	if err != nil {
		return nil, &Error{Code: CodeFormat, Op: "load", Msg: "scan lineage", Err: err}
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	var l ScanLineage
	if err := dec.Decode(&l); err != nil || dec.More() {
		return nil, &Error{Code: CodeFormat, Op: "load", Msg: "malformed scan lineage", Err: err}
	}
	if err := l.validate(); err != nil {
		return nil, &Error{Code: CodeFormat, Op: "load", Msg: "scan lineage", Err: err}
	}
	return &l, nil
}
