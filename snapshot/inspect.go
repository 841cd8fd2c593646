package snapshot

import (
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
)

// Phase is the state of a staged attempt (PW-07.04).
type Phase string

// The phases InspectIncomplete reports.
const (
	// PhaseStaging: a valid intent.json but no completion marker. The attempt was
	// interrupted, failed, or is still being written.
	PhaseStaging Phase = "STAGING"
	// PhaseValidated: the complete package in staging passes every check at inspection
	// time. It was not published (a rename failed, lost a race, or never ran), and it is
	// not known to be durable or approved.
	PhaseValidated Phase = "VALIDATED"
	// PhaseInvalid: the attempt's bytes fail validation; Diagnostic says how.
	PhaseInvalid Phase = "INVALID"
	// PhaseUnavailable: the attempt cannot be assessed (no intent, unreadable files).
	PhaseUnavailable Phase = "UNAVAILABLE"
)

// Attempt describes one staged attempt.
type Attempt struct {
	Path       string
	ID         *ID // the snapshot ID from intent.json; nil when unknown
	Phase      Phase
	Diagnostic string
}

// InspectIncomplete reports every attempt in root/staging, in name order, without
// modifying anything. It is advisory under concurrent publication: an attempt may
// change phase, or be renamed into root/snapshots, while it is inspected.
func (s *Store) InspectIncomplete() ([]Attempt, error) {
	dir := filepath.Join(s.root, stagingDir)
	ents, err := s.fs.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &Error{Code: CodeIO, Op: "inspect", Path: dir, Err: err}
	}
	out := make([]Attempt, 0, len(ents))
	for _, de := range ents {
		out = append(out, s.inspect(filepath.Join(dir, de.Name()), de))
	}
	return out, nil
}

func (s *Store) inspect(path string, de fs.DirEntry) Attempt {
	a := Attempt{Path: path}
	if !de.IsDir() {
		a.Phase, a.Diagnostic = PhaseInvalid, "not a directory"
		return a
	}
	ip := filepath.Join(path, intentName)
	b, err := s.readSmall(ip, 256)
	var ie *StorageIntegrityError
	switch {
	case errors.As(err, &ie) && errors.Is(err, fs.ErrNotExist):
		a.Phase, a.Diagnostic = PhaseUnavailable, "no intent.json: interrupted before its intent was written"
		return a
	case err != nil:
		a.Phase, a.Diagnostic = PhaseUnavailable, "intent.json unreadable: "+err.Error()
		return a
	}
	id, err := decodeIntent(b)
	if err != nil {
		a.Phase, a.Diagnostic = PhaseInvalid, "intent.json: "+err.Error()
		return a
	}
	a.ID = &id
	published := ""
	if _, err := s.fs.Lstat(s.Path(id)); err == nil {
		published = "; a snapshot with this ID is published"
	}
	if strings.HasSuffix(filepath.Base(path), claimSuffix) {
		// What an interrupted RemoveStaging or Remove left: never to be published again.
		published += "; claimed for removal (an interrupted gc-staging or prune), which gc-staging finishes"
	}
	if _, err := s.fs.Lstat(filepath.Join(path, markerName)); errors.Is(err, fs.ErrNotExist) {
		a.Phase, a.Diagnostic = PhaseStaging, "no complete.sha256: interrupted or still being written"+published
		return a
	} else if err != nil {
		a.Phase, a.Diagnostic = PhaseUnavailable, "complete.sha256 unreadable: "+err.Error()+published
		return a
	}
	if _, _, err := s.check(path, id, checkSums, nil, nil); err != nil {
		var e *Error
		if errors.As(err, &e) && e.Code == CodeIO {
			a.Phase = PhaseUnavailable
		} else {
			a.Phase = PhaseInvalid
		}
		a.Diagnostic = err.Error() + published
		return a
	}
	a.Phase, a.Diagnostic = PhaseValidated, "complete package passes validation but was not published"+published
	return a
}
