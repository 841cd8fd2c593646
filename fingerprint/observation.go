package fingerprint

import (
	"github.com/pipewhy/pipewhy/arrays"
)

// Identities resolves the local integer ids of C1 observation rows to full identities.
// A local id is never an identity (C1 PW-02.07, C2 PW-03.23): it means something only
// through this metadata, which the snapshot persists beside the table.
type Identities struct {
	Algorithms map[uint64]string // algorithm_id -> Algorithm.ID(), e.g. "pipewhy.fingerprint/xxh3-128/v1"
	Policies   map[uint64]string // policy_id -> full C2 profile identity (normalize.Profile.ID)
}

// Observation is the part of a C1 observation row that is not the fingerprint.
type Observation struct {
	ObservationID uint64
	ArtifactID    uint64
	SnapshotID    uint64
	ObservedAtNs  uint64
	PolicyID      uint64 // must resolve through Identities.Policies to the state's profile
	AlgorithmID   uint64 // must resolve through Identities.Algorithms to the state's algorithm
}

// AppendObservation appends a CAPTURED row for state s to t: the row's columns from o,
// and s's words (State.Words) appended to t.FingerprintWords, with fingerprint_offset and
// fingerprint_length pointing at them. o.AlgorithmID and o.PolicyID must resolve through
// ids to s's algorithm and profile identities (unresolved: CodeObservation; resolving to
// another identity: CodeForeignContext). On error t is unchanged. The state's schema
// identity and mode are not columns of the row; persist s.Context().ID() beside the table
// (the snapshot does) and pass it back to ObservationState.
func AppendObservation(t *arrays.ObservationTable, o Observation, s State, ids Identities) error {
	if t == nil {
		return newErr("observation", CodeObservation, "nil table")
	}
	c := s.Context()
	if !c.Valid() {
		return newErr("observation", CodeContext, "state has no context")
	}
	if err := checkIdentities(o.AlgorithmID, o.PolicyID, c, ids); err != nil {
		return err
	}
	n := t.Len()
	if len(t.ArtifactID) != n || len(t.SnapshotID) != n || len(t.ObservedAtNs) != n || len(t.StatusID) != n ||
		len(t.PolicyID) != n || len(t.AlgorithmID) != n || len(t.FingerprintOffset) != n || len(t.FingerprintLength) != n {
		return newErr("observation", CodeObservation, "table row columns differ in length")
	}
	off := uint64(len(t.FingerprintWords))
	t.FingerprintWords = s.AppendWords(t.FingerprintWords)
	t.ObservationID = append(t.ObservationID, o.ObservationID)
	t.ArtifactID = append(t.ArtifactID, o.ArtifactID)
	t.SnapshotID = append(t.SnapshotID, o.SnapshotID)
	t.ObservedAtNs = append(t.ObservedAtNs, o.ObservedAtNs)
	t.StatusID = append(t.StatusID, arrays.StatusCaptured)
	t.PolicyID = append(t.PolicyID, o.PolicyID)
	t.AlgorithmID = append(t.AlgorithmID, o.AlgorithmID)
	t.FingerprintOffset = append(t.FingerprintOffset, off)
	t.FingerprintLength = append(t.FingerprintLength, uint64(len(t.FingerprintWords))-off)
	return nil
}

// ObservationState returns the state of row i of t for context c. The row must be
// CAPTURED (else CodeObservation); its algorithm_id and policy_id must resolve through ids
// to c's algorithm and profile identities, and recordedContextID (the context identity
// persisted beside the table) must be c.ID() (else CodeForeignContext); its fingerprint
// slice must lie inside FingerprintWords (CodeObservation, wrapping the arrays error) and
// hold valid state words for c (as FromWords). The state does not alias the table.
func ObservationState(t *arrays.ObservationTable, i int, c Context, ids Identities, recordedContextID string) (State, error) {
	if t == nil {
		return State{}, newErr("observation", CodeObservation, "nil table")
	}
	if !c.Valid() {
		return State{}, newErr("observation", CodeContext, "invalid context")
	}
	words, err := t.Fingerprint(i)
	if err != nil {
		return State{}, wrapErr("observation", CodeObservation, "", err)
	}
	if i >= len(t.StatusID) || i >= len(t.AlgorithmID) || i >= len(t.PolicyID) {
		return State{}, newErr("observation", CodeObservation, "row "+uitoa(uint64(i))+" is outside a row column")
	}
	if t.StatusID[i] != arrays.StatusCaptured {
		return State{}, newErr("observation", CodeObservation, "row "+uitoa(uint64(i))+" is not CAPTURED")
	}
	if err := checkIdentities(t.AlgorithmID[i], t.PolicyID[i], c, ids); err != nil {
		return State{}, err
	}
	return FromWords(c, recordedContextID, words)
}

func checkIdentities(algID, policyID uint64, c Context, ids Identities) error {
	alg, ok := ids.Algorithms[algID]
	if !ok {
		return newErr("observation", CodeObservation, "algorithm_id "+uitoa(algID)+" does not resolve")
	}
	if alg != c.Algorithm().ID() {
		return newErr("observation", CodeForeignContext, "algorithm_id "+uitoa(algID)+" resolves to another algorithm")
	}
	prof, ok := ids.Policies[policyID]
	if !ok {
		return newErr("observation", CodeObservation, "policy_id "+uitoa(policyID)+" does not resolve")
	}
	if prof != c.ProfileID() {
		return newErr("observation", CodeForeignContext, "policy_id "+uitoa(policyID)+" resolves to another profile")
	}
	return nil
}
