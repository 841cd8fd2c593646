package incident

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/pipewhy/pipewhy/arrays"
	"github.com/pipewhy/pipewhy/fingerprint"
	"github.com/pipewhy/pipewhy/internal/chain"
	"github.com/pipewhy/pipewhy/internal/tablefp"
	"github.com/pipewhy/pipewhy/normalize"
	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/why"
)

// StoreDir is the directory, inside a repository, of the C5 store of incident events.
const StoreDir = "incidents"

// Event format identifiers (docs/contracts/incidents.md).
const (
	EventFormat  = "pipewhy.incidents"
	EventVersion = 1
	KeyEvent     = "incidents" // the uint8 array holding an event's descriptor JSON
)

// Incident statuses.
const (
	Open     = "open"
	Resolved = "resolved"
)

// Incident is a problem and its recurrences: every problem with the same grouping key.
type Incident struct {
	ID        uint64   `json:"id"`
	Key       string   `json:"key"`
	Artifact  string   `json:"artifact"`
	Reason    string   `json:"reason"`
	Signature []string `json:"signature"`
	Summary   string   `json:"summary"` // the latest occurrence's
	Status    string   `json:"status"`
	// Count is the number of distinct snapshots the problem was seen at.
	Count        int    `json:"count"`
	FirstSeen    string `json:"first_seen"` // snapshot ids
	LastSeen     string `json:"last_seen"`
	FirstSeenNs  uint64 `json:"first_seen_at_ns,string"` // when check recorded them
	LastSeenNs   uint64 `json:"last_seen_at_ns,string"`
	Reopened     int    `json:"reopened"`
	ResolvedAtNs uint64 `json:"resolved_at_ns,string,omitempty"`
	Note         string `json:"note,omitempty"` // the last resolution's note
	seen         map[string]bool
}

// occurrence and resolution are the entries of an event's descriptor.
type occurrence struct {
	Incident  uint64   `json:"incident,string"`
	Key       string   `json:"key"`
	Reason    string   `json:"reason"`
	Artifact  string   `json:"artifact"`
	Snapshot  string   `json:"snapshot"`
	Signature []string `json:"signature"`
	Summary   string   `json:"summary"`
}

type resolution struct {
	Incident uint64 `json:"incident,string"`
	Note     string `json:"note"`
}

type eventJSON struct {
	Format      string       `json:"format"`
	Version     int          `json:"version"`
	Policy      string       `json:"policy"`
	Grouping    []string     `json:"grouping"` // incident.grouping_policy_id → identity
	Kind        string       `json:"kind"`     // "check" or "resolve"
	Names       []string     `json:"names"`    // artifact.name_id → artifact
	Snapshots   []string     `json:"snapshots"`
	Profiles    []string     `json:"profiles"`
	Algorithms  []string     `json:"algorithms"`
	Evidence    []occurrence `json:"evidence"` // incident.evidence_id → occurrence
	Resolutions []resolution `json:"resolutions"`
}

// eventColumns is the C3 schema of an event's rows (internal/tablefp).
var eventColumns = []tablefp.Column{
	{ID: 1, Name: "kind", Type: fingerprint.TypeText},
	{ID: 2, Name: "incident", Type: fingerprint.TypeInt},
	{ID: 3, Name: "key", Type: fingerprint.TypeText},
	{ID: 4, Name: "snapshot", Type: fingerprint.TypeText},
	{ID: 5, Name: "note", Type: fingerprint.TypeText},
}

// eventState is the C3 state of an event's rows: one per occurrence, one per resolution.
func eventState(d eventJSON) (*tablefp.Table, error) {
	tb, err := tablefp.New(eventColumns)
	if err != nil {
		return nil, err
	}
	for _, o := range d.Evidence {
		if err := tb.Add(eventColumns, normalize.TextValue("occurrence"), normalize.Uint(o.Incident),
			normalize.TextValue(o.Key), normalize.TextValue(o.Snapshot), normalize.NullValue{}); err != nil {
			return nil, err
		}
	}
	for _, r := range d.Resolutions {
		if err := tb.Add(eventColumns, normalize.TextValue("resolution"), normalize.Uint(r.Incident),
			normalize.NullValue{}, normalize.NullValue{}, tablefp.Text(r.Note)); err != nil {
			return nil, err
		}
	}
	return tb, nil
}

// Artifact kinds (artifact.kind_id) of an event.
const (
	KindDataset uint8 = 0 // a scanned artifact an occurrence names
	KindEvent   uint8 = 1 // the event itself: its observation holds the event's C3 state
)

// Store is a repository's incidents: an append-only chain of C5 snapshots, one per
// check that saw something new and one per resolution. Nothing is ever deleted: the
// incidents are the fold of the events.
type Store struct {
	repo  *repo.Repo
	chain *chain.Chain
}

// OpenStore returns the incident store of r (its directory is created by the first event).
func OpenStore(r *repo.Repo) *Store {
	return &Store{repo: r, chain: chain.New(filepath.Join(r.Dir(), StoreDir), "pipewhy:incidents", eventColumns)}
}

type event struct {
	meta snapshot.Metadata
	desc eventJSON
}

// events reads and validates every event, oldest first.
func (s *Store) events() ([]event, error) {
	st, metas, err := s.chain.List()
	if err != nil {
		return nil, &Error{Code: CodeStore, Msg: "cannot read the incident events", Err: err}
	}
	var out []event
	for _, m := range metas {
		snap, err := st.Open(m.ID)
		if err != nil {
			return nil, &Error{Code: CodeStore, Msg: "cannot open incident event", Err: err}
		}
		d, err := decodeEvent(snap)
		if err != nil {
			return nil, &Error{Code: CodeFormat, Msg: "incident event " + st.Path(m.ID), Err: err}
		}
		out = append(out, event{meta: m, desc: d})
	}
	return out, nil
}

// List returns every incident, open and resolved, by id.
func (s *Store) List() ([]*Incident, error) {
	evs, err := s.events()
	if err != nil {
		return nil, err
	}
	return fold(evs), nil
}

func fold(evs []event) []*Incident {
	byID := map[uint64]*Incident{}
	for _, e := range evs {
		at := e.meta.FinishedAtNs
		for _, o := range e.desc.Evidence {
			in := byID[o.Incident]
			if in == nil {
				in = &Incident{ID: o.Incident, Key: o.Key, Artifact: o.Artifact, Reason: o.Reason, Signature: o.Signature,
					Status: Open, FirstSeen: o.Snapshot, FirstSeenNs: at, seen: map[string]bool{}}
				byID[o.Incident] = in
			}
			if in.Status == Resolved {
				in.Status = Open
				in.Reopened++
			}
			if !in.seen[o.Snapshot] {
				in.seen[o.Snapshot] = true
				in.Count++
			}
			in.LastSeen, in.LastSeenNs, in.Summary = o.Snapshot, at, o.Summary
		}
		for _, r := range e.desc.Resolutions {
			if in := byID[r.Incident]; in != nil {
				in.Status, in.ResolvedAtNs, in.Note = Resolved, at, r.Note
			}
		}
	}
	out := make([]*Incident, 0, len(byID))
	for _, in := range byID {
		out = append(out, in)
	}
	slices.SortFunc(out, func(a, b *Incident) int { return int(a.ID) - int(b.ID) })
	return out
}

// Recorded is what Record did with each problem.
type Recorded struct {
	Problem  Problem `json:"problem"`
	Incident uint64  `json:"incident"`
	// State is "new" (a new incident), "again" (seen at a new snapshot), "reopened" (seen
	// again after it was resolved) or "known" (already recorded at this snapshot).
	State string `json:"state"`
}

// Record records problems under the repository's writer lock: each joins the incident of
// its grouping key (a new one when none has it) and counts once per snapshot; a resolved
// incident seen at a new snapshot reopens. Only new occurrences are written, as one event;
// running check twice on the same snapshots records nothing the second time.
func (s *Store) Record(ctx context.Context, h *why.History, problems []Problem) ([]Recorded, []*Incident, error) {
	unlock, err := s.repo.Lock()
	if err != nil {
		return nil, nil, &Error{Code: CodeStore, Msg: "repository lock", Err: err}
	}
	defer unlock()
	evs, err := s.events()
	if err != nil {
		return nil, nil, err
	}
	incs := fold(evs)
	byKey := map[string]*Incident{}
	next := uint64(1)
	for _, in := range incs {
		byKey[in.Key] = in
		next = max(next, in.ID+1)
	}
	var out []Recorded
	var occ []occurrence
	for _, p := range problems {
		in := byKey[p.Key]
		rec := Recorded{Problem: p}
		switch {
		case in == nil:
			in = &Incident{ID: next, Key: p.Key, seen: map[string]bool{}}
			next++
			byKey[p.Key] = in
			rec.State = "new"
		case in.seen[p.Snapshot]:
			rec.State = "known"
		case in.Status == Resolved:
			rec.State = "reopened"
		default:
			rec.State = "again"
		}
		rec.Incident = in.ID
		if rec.State != "known" {
			in.seen[p.Snapshot] = true
			occ = append(occ, occurrence{Incident: in.ID, Key: p.Key, Reason: p.Reason, Artifact: p.Artifact,
				Snapshot: p.Snapshot, Signature: p.Signature, Summary: p.Summary})
		}
		out = append(out, rec)
	}
	if len(occ) > 0 {
		if err := s.publish(ctx, h, evs, eventJSON{Kind: "check", Evidence: occ}); err != nil {
			return nil, nil, err
		}
		if evs, err = s.events(); err != nil {
			return nil, nil, err
		}
	}
	return out, fold(evs), nil
}

// Resolve marks incident id resolved with a note, as a new event (nothing is deleted).
// An unknown or already resolved incident is CodeNotFound or CodeResolved.
func (s *Store) Resolve(ctx context.Context, id uint64, note string) error {
	unlock, err := s.repo.Lock()
	if err != nil {
		return &Error{Code: CodeStore, Msg: "repository lock", Err: err}
	}
	defer unlock()
	evs, err := s.events()
	if err != nil {
		return err
	}
	for _, in := range fold(evs) {
		if in.ID == id {
			if in.Status == Resolved {
				return &Error{Code: CodeResolved, Msg: fmt.Sprintf("incident %d is already resolved", id)}
			}
			return s.publish(ctx, nil, evs, eventJSON{Kind: "resolve", Resolutions: []resolution{{Incident: id, Note: note}}})
		}
	}
	return &Error{Code: CodeNotFound, Msg: fmt.Sprintf("no incident %d (pipewhy incidents --all lists them)", id)}
}

// publish writes one event: its descriptor, the C1 artifact, observation and incident
// tables (one observation per artifact snapshot an occurrence names, with that scan's
// dataset state), and a C3 state over the event's rows.
func (s *Store) publish(ctx context.Context, h *why.History, evs []event, d eventJSON) error {
	d.Format, d.Version, d.Policy, d.Grouping = EventFormat, EventVersion, Policy, []string{Grouping}
	d.Names, d.Snapshots, d.Profiles, d.Algorithms = []string{}, []string{}, []string{}, []string{}
	if d.Evidence == nil {
		d.Evidence = []occurrence{}
	}
	if d.Resolutions == nil {
		d.Resolutions = []resolution{}
	}
	index := func(list *[]string, v string) uint64 {
		if i := slices.Index(*list, v); i >= 0 {
			return uint64(i)
		}
		*list = append(*list, v)
		return uint64(len(*list) - 1)
	}
	at := &arrays.ArtifactTable{ArtifactID: []uint64{}, ParentID: []uint64{}, KindID: []uint8{}, NameID: []uint64{}}
	ot := &arrays.ObservationTable{ObservationID: []uint64{}, ArtifactID: []uint64{}, SnapshotID: []uint64{}, ObservedAtNs: []uint64{},
		StatusID: []uint8{}, PolicyID: []uint64{}, AlgorithmID: []uint64{}, FingerprintOffset: []uint64{}, FingerprintLength: []uint64{},
		FingerprintWords: []uint64{}}
	it := &arrays.IncidentTable{IncidentID: []uint64{}, ArtifactID: []uint64{}, ObservationID: []uint64{}, ReasonID: []uint8{},
		EvidenceID: []uint64{}, GroupingPolicyID: []uint64{}}
	artID := map[string]uint64{}
	obsID := map[string]uint64{}
	addArt := func(kind uint8, name string) uint64 {
		id := uint64(len(at.ArtifactID))
		at.ArtifactID = append(at.ArtifactID, id)
		at.ParentID = append(at.ParentID, arrays.Absent)
		at.KindID = append(at.KindID, kind)
		at.NameID = append(at.NameID, index(&d.Names, name))
		return id
	}
	addObs := func(art uint64, snap string, atNs uint64, profile, alg string, words []uint64) uint64 {
		id := uint64(len(ot.ObservationID))
		ot.ObservationID = append(ot.ObservationID, id)
		ot.ArtifactID = append(ot.ArtifactID, art)
		ot.SnapshotID = append(ot.SnapshotID, index(&d.Snapshots, snap))
		ot.ObservedAtNs = append(ot.ObservedAtNs, atNs)
		ot.StatusID = append(ot.StatusID, arrays.StatusCaptured)
		ot.PolicyID = append(ot.PolicyID, index(&d.Profiles, profile))
		ot.AlgorithmID = append(ot.AlgorithmID, index(&d.Algorithms, alg))
		ot.FingerprintOffset = append(ot.FingerprintOffset, uint64(len(ot.FingerprintWords)))
		ot.FingerprintLength = append(ot.FingerprintLength, uint64(len(words)))
		ot.FingerprintWords = append(ot.FingerprintWords, words...)
		return id
	}
	for i, o := range d.Evidence {
		a, ok := artID[o.Artifact]
		if !ok {
			a = addArt(KindDataset, o.Artifact)
			artID[o.Artifact] = a
		}
		ob, ok := obsID[o.Snapshot]
		if !ok {
			p, found := h.Position(o.Snapshot)
			if !found {
				return &Error{Code: CodeInternal, Msg: "an occurrence names a snapshot the log does not have"}
			}
			sum, err := h.Summary(p)
			if err != nil {
				return err
			}
			ob = addObs(a, o.Snapshot, sum.FinishedAtNs, sum.Profile, sum.Algorithm, sum.State)
			obsID[o.Snapshot] = ob
		}
		it.IncidentID = append(it.IncidentID, o.Incident)
		it.ArtifactID = append(it.ArtifactID, a)
		it.ObservationID = append(it.ObservationID, ob)
		it.ReasonID = append(it.ReasonID, ReasonIDs[o.Reason])
		it.EvidenceID = append(it.EvidenceID, uint64(i))
		it.GroupingPolicyID = append(it.GroupingPolicyID, 0)
	}
	tb, err := eventState(d)
	if err != nil {
		return err
	}
	now := uint64(time.Now().UnixNano())
	id := snapshot.NewID()
	ctx3 := tb.Context()
	addObs(addArt(KindEvent, EventFormat), id.String(), now, ctx3.ProfileID(), ctx3.Algorithm().ID(), tb.State().Words())
	js, err := json.Marshal(d)
	if err != nil {
		return &Error{Code: CodeInternal, Msg: "encode event", Err: err}
	}
	arrs := map[string]snapshot.Array{KeyEvent: snapshot.FromUint8(js)}
	if err := repo.TableArrays(arrs, at, ot, it); err != nil {
		return err
	}
	metas := make([]snapshot.Metadata, len(evs))
	for i, e := range evs {
		metas[i] = e.meta
	}
	if _, err := s.chain.Append(ctx, metas, id, "incidents="+d.Kind, tb.State(), arrs); err != nil {
		return &Error{Code: CodeStore, Msg: "cannot publish the incident event", Err: err}
	}
	return nil
}

// decodeEvent validates a stored event: the descriptor (strict JSON), the C1 tables with
// their validators and the contexts the descriptor defines, and that each incident row
// agrees with its evidence (artifact, reason code).
func decodeEvent(snap *snapshot.Snapshot) (eventJSON, error) {
	var d eventJSON
	a, ok := snap.Arrays[KeyEvent]
	if !ok {
		return d, errors.New("not an incident event (no descriptor)")
	}
	js, err := a.Uint8s()
	if err != nil {
		return d, err
	}
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil || dec.More() {
		return d, fmt.Errorf("malformed descriptor: %v", err)
	}
	if d.Format != EventFormat || d.Version != EventVersion || d.Policy != Policy || !slices.Equal(d.Grouping, []string{Grouping}) ||
		(d.Kind != "check" && d.Kind != "resolve") {
		return d, errors.New("unsupported format, version, policy, grouping or kind")
	}
	var tables arrays.Tables
	for _, kind := range []arrays.TableKind{arrays.TableArtifact, arrays.TableObservation, arrays.TableIncident} {
		t, err := repo.DecodeTable(snap, kind)
		if err != nil {
			return d, err
		}
		switch tt := t.(type) {
		case *arrays.ArtifactTable:
			tables.Artifacts = tt
		case *arrays.ObservationTable:
			tables.Observations = tt
		case *arrays.IncidentTable:
			tables.Incidents = tt
		}
	}
	cx := &arrays.Context{Names: repo.IDRange(len(d.Names)), Kinds: repo.IDRange(int(KindEvent) + 1), Snapshots: repo.IDRange(len(d.Snapshots)),
		Policies: repo.IDRange(len(d.Profiles)), Algorithms: repo.IDRange(len(d.Algorithms)),
		Evidence: repo.IDRange(len(d.Evidence)), GroupingPolicies: repo.IDRange(1)}
	if err := tables.Validate(cx); err != nil {
		return d, err
	}
	it, at := tables.Incidents, tables.Artifacts
	if it.Len() != len(d.Evidence) {
		return d, errors.New("incident rows and evidence differ in number")
	}
	for i := range it.Len() {
		o := d.Evidence[it.EvidenceID[i]]
		if it.IncidentID[i] != o.Incident || ReasonIDs[o.Reason] != it.ReasonID[i] || o.Reason == "" ||
			d.Names[at.NameID[slices.Index(at.ArtifactID, it.ArtifactID[i])]] != o.Artifact ||
			d.Snapshots[tables.Observations.SnapshotID[slices.Index(tables.Observations.ObservationID, it.ObservationID[i])]] != o.Snapshot ||
			o.Incident == 0 || len(o.Key) != 64 || strings.ContainsAny(o.Artifact, "\n\r") {
			return d, fmt.Errorf("incident row %d disagrees with its evidence", i)
		}
	}
	// The event's own observation: its C3 state, recomputed from the descriptor.
	ot := tables.Observations
	last := ot.Len() - 1
	if last < 0 || at.KindID[slices.Index(at.ArtifactID, ot.ArtifactID[last])] != KindEvent || d.Snapshots[ot.SnapshotID[last]] != snap.Metadata.ID.String() {
		return d, errors.New("the event's own observation is missing")
	}
	tb, err := eventState(d)
	if err != nil {
		return d, err
	}
	ctx3 := tb.Context()
	ids := fingerprint.Identities{Algorithms: map[uint64]string{}, Policies: map[uint64]string{}}
	for i, a := range d.Algorithms {
		ids.Algorithms[uint64(i)] = a
	}
	for i, p := range d.Profiles {
		ids.Policies[uint64(i)] = p
	}
	stored, err := fingerprint.ObservationState(ot, last, ctx3, ids, snap.Metadata.Fingerprint.ContextID)
	if err != nil {
		return d, err
	}
	if eq, err := stored.Equal(tb.State()); err != nil || !eq {
		return d, errors.New("the stored event state is not the state of the event's rows")
	}
	return d, nil
}
