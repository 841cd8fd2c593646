package lineage

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
)

// MaxImportBytes bounds one OpenLineage or dbt file an import reads.
const MaxImportBytes = 512 << 20

// Imported is what an import of external lineage produced.
type Imported struct {
	Declarations []Declaration
	Unmapped     []string // external dataset names no mapping names (ascending)
	Skipped      []string // what was left out and why ("run <id> of job <ns/name>: FAIL")
	Events       int      // OpenLineage events read, or dbt nodes
}

// olEvent is the part of an OpenLineage RunEvent (or JobEvent) the import reads.
type olEvent struct {
	EventType string      `json:"eventType"`
	EventTime string      `json:"eventTime"`
	Run       *olRun      `json:"run"`
	Job       *olJob      `json:"job"`
	Inputs    []olDataset `json:"inputs"`
	Outputs   []olDataset `json:"outputs"`
	Dataset   *olDataset  `json:"dataset"` // a DatasetEvent: no lineage

	time   time.Time    // EventTime, parsed
	facets olJobFacets  // the job facets the transform identity comes from
	cll    []olFieldMap // column lineage, per output
}

type olRun struct {
	RunID string `json:"runId"`
}

type olJob struct {
	Namespace string                     `json:"namespace"`
	Name      string                     `json:"name"`
	Facets    map[string]json.RawMessage `json:"facets"`
}

type olDataset struct {
	Namespace string                     `json:"namespace"`
	Name      string                     `json:"name"`
	Facets    map[string]json.RawMessage `json:"facets"`
}

type olJobFacets struct {
	SQL        string
	SourceCode string
	CodeURL    string
	CodeVer    string
}

// olFieldMap is one output's column lineage: output field → input fields.
type olFieldMap map[string][]olInputField

type olInputField struct {
	Namespace string
	Name      string
	Field     string
	Identity  bool // the field is copied unchanged (IDENTITY)
}

type olColumnLineage struct {
	Fields map[string]struct {
		InputFields []struct {
			Namespace       string `json:"namespace"`
			Name            string `json:"name"`
			Field           string `json:"field"`
			Transformations []struct {
				Type    string `json:"type"`
				Subtype string `json:"subtype"`
			} `json:"transformations"`
		} `json:"inputFields"`
		TransformationType string `json:"transformationType"`
	} `json:"fields"`
}

type olSchema struct {
	Fields []struct {
		Name string `json:"name"`
	} `json:"fields"`
}

// ExternalName is how an imported OpenLineage dataset is named for mapping to an
// artifact (pipewhy.yaml lineage_names, --map): its namespace, '#', its name.
func ExternalName(namespace, name string) string { return namespace + "#" + name }

// ParseOpenLineage reads OpenLineage events from data: one JSON event, a JSON array of
// events, or newline-delimited JSON (one event per line). Every event is checked (an
// event time in RFC 3339, a run id, a job namespace and name, datasets with namespace
// and name, facets of the right shape where the import reads them); the first problem
// is CodeImport naming the event.
func ParseOpenLineage(data []byte) (*OpenLineageEvents, error) {
	bad := func(where, msg string, err error) error {
		return &Error{Code: CodeImport, Op: "import", Msg: where + ": " + msg, Err: err}
	}
	if len(data) > MaxImportBytes {
		return nil, bad("file", fmt.Sprintf("larger than %d bytes", MaxImportBytes), nil)
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) == 0 {
		return nil, bad("file", "empty: no OpenLineage events", nil)
	}
	var raws []json.RawMessage
	var where []string
	switch trimmed[0] {
	case '[':
		if err := json.Unmarshal(trimmed, &raws); err != nil {
			return nil, bad("file", "not a JSON array of events", err)
		}
		for i := range raws {
			where = append(where, fmt.Sprintf("event %d", i+1))
		}
	case '{':
		// One event, or NDJSON: decode values one after the other.
		dec := json.NewDecoder(bytes.NewReader(trimmed))
		for n := 1; ; n++ {
			var r json.RawMessage
			if err := dec.Decode(&r); errors.Is(err, io.EOF) {
				break
			} else if err != nil {
				return nil, bad(fmt.Sprintf("event %d", n), "not JSON", err)
			}
			raws = append(raws, r)
			where = append(where, fmt.Sprintf("event %d", n))
		}
	default:
		return nil, bad("file", "not JSON: an event object, an array of events or one event per line", nil)
	}
	if len(raws) == 0 {
		return nil, bad("file", "no OpenLineage events", nil)
	}
	out := make([]olEvent, 0, len(raws))
	for i, r := range raws {
		e, err := parseEvent(r)
		if err != nil {
			return nil, bad(where[i], err.Error(), nil)
		}
		out = append(out, e)
	}
	return &OpenLineageEvents{events: out}, nil
}

// OpenLineageEvents are parsed, checked OpenLineage events (ParseOpenLineage).
type OpenLineageEvents struct{ events []olEvent }

// Len returns the number of events.
func (e *OpenLineageEvents) Len() int { return len(e.events) }

func parseEvent(r json.RawMessage) (olEvent, error) {
	var e olEvent
	if len(r) == 0 || r[0] != '{' {
		return e, errors.New("not a JSON object")
	}
	if err := json.Unmarshal(r, &e); err != nil {
		return e, fmt.Errorf("not an OpenLineage event (%v)", err)
	}
	if e.Job == nil && e.Dataset == nil {
		return e, errors.New("neither a job nor a dataset: not an OpenLineage event")
	}
	t, err := time.Parse(time.RFC3339Nano, e.EventTime)
	if err != nil {
		return e, errors.New("eventTime is missing or not RFC 3339")
	}
	e.time = t
	if e.Job == nil {
		return e, nil // a DatasetEvent: no lineage
	}
	if e.Job.Namespace == "" || e.Job.Name == "" {
		return e, errors.New("job namespace and name are required")
	}
	if e.Run != nil && e.Run.RunID == "" {
		return e, errors.New("run.runId is empty")
	}
	switch e.EventType {
	case "", "START", "RUNNING", "COMPLETE", "ABORT", "FAIL", "OTHER":
	default:
		return e, fmt.Errorf("unknown eventType %q", e.EventType)
	}
	for _, ds := range append(slices.Clone(e.Inputs), e.Outputs...) {
		if ds.Namespace == "" || ds.Name == "" {
			return e, errors.New("a dataset without namespace or name")
		}
		if strings.ContainsAny(ds.Namespace+ds.Name, "\n\r") {
			return e, errors.New("a dataset name is not one line")
		}
	}
	if strings.ContainsAny(e.Job.Namespace+e.Job.Name, "\n\r") {
		return e, errors.New("the job name is not one line")
	}
	// Job facets the transform identity is taken from.
	if raw, ok := e.Job.Facets["sql"]; ok {
		var f struct {
			Query string `json:"query"`
		}
		if err := json.Unmarshal(raw, &f); err != nil {
			return e, errors.New("malformed sql job facet")
		}
		e.facets.SQL = f.Query
	}
	if raw, ok := e.Job.Facets["sourceCode"]; ok {
		var f struct {
			SourceCode string `json:"sourceCode"`
		}
		if err := json.Unmarshal(raw, &f); err != nil {
			return e, errors.New("malformed sourceCode job facet")
		}
		e.facets.SourceCode = f.SourceCode
	}
	if raw, ok := e.Job.Facets["sourceCodeLocation"]; ok {
		var f struct {
			URL     string `json:"url"`
			Version string `json:"version"`
		}
		if err := json.Unmarshal(raw, &f); err != nil {
			return e, errors.New("malformed sourceCodeLocation job facet")
		}
		e.facets.CodeURL, e.facets.CodeVer = f.URL, f.Version
	}
	e.cll = make([]olFieldMap, len(e.Outputs))
	for i, o := range e.Outputs {
		raw, ok := o.Facets["columnLineage"]
		if !ok {
			continue
		}
		var cl olColumnLineage
		if err := json.Unmarshal(raw, &cl); err != nil {
			return e, errors.New("malformed columnLineage facet of output " + o.Name)
		}
		m := olFieldMap{}
		for field, f := range cl.Fields {
			if field == "" {
				return e, errors.New("a columnLineage field without a name")
			}
			for _, in := range f.InputFields {
				if in.Namespace == "" || in.Name == "" || in.Field == "" || strings.ContainsAny(in.Field, "\n\r") {
					return e, errors.New("a columnLineage input field without namespace, name or field")
				}
				identity := f.TransformationType == "IDENTITY" && len(in.Transformations) == 0
				if len(in.Transformations) == 1 && in.Transformations[0].Type == "DIRECT" && in.Transformations[0].Subtype == "IDENTITY" {
					identity = true
				}
				m[field] = append(m[field], olInputField{Namespace: in.Namespace, Name: in.Name, Field: in.Field, Identity: identity})
			}
		}
		e.cll[i] = m
	}
	return e, nil
}

// olRunState is one run (or one JobEvent job) merged over its events.
type olRunState struct {
	key     string
	job     olJob
	time    time.Time
	failed  string
	facets  olJobFacets
	inputs  []olDataset
	outputs []olDataset
	cll     map[string]olFieldMap // output external name → column lineage
	schema  map[string][]string   // output external name → schema field names
}

// ImportOpenLineage turns events into declarations. The events of one run (by run id;
// a JobEvent by its job) merge: inputs and outputs are the union over the run's events,
// facets the latest. A run that ended in FAIL or ABORT declares nothing (it wrote no
// output); it is listed in Skipped. Every input → output pair of a run is an edge:
//
//   - COPY when the run has exactly one input and the output's columnLineage maps every
//     output column (every column of its schema facet, when it has one) from the column of
//     the same name in that input with an IDENTITY transformation;
//   - otherwise TRANSFORM, whose transform is a literal identity taken from the job: the
//     SHA-256 of its sql facet's query, else of its sourceCode facet, else its
//     sourceCodeLocation url and version, else the job's namespace and name.
//
// Column lineage (direct and indirect input fields) becomes column edges. Dataset names
// map to artifacts only through names (ExternalName spelling); names without a mapping
// are listed in Unmapped and their edges left out; the caller decides whether that is an
// error. The origin of every declaration is the job ("openlineage <ns>/<name>"), so a
// later run of the job replaces its earlier declarations.
func ImportOpenLineage(events *OpenLineageEvents, names map[string]string) *Imported {
	out := &Imported{Events: events.Len()}
	runs := map[string]*olRunState{}
	var order []string
	for _, e := range events.events {
		if e.Job == nil {
			continue
		}
		key := "job:" + e.Job.Namespace + "/" + e.Job.Name
		if e.Run != nil {
			key = "run:" + e.Run.RunID
		}
		r := runs[key]
		if r == nil {
			r = &olRunState{key: key, job: *e.Job, cll: map[string]olFieldMap{}, schema: map[string][]string{}}
			runs[key] = r
			order = append(order, key)
		}
		if e.time.After(r.time) {
			r.time = e.time
		}
		if e.EventType == "FAIL" || e.EventType == "ABORT" {
			r.failed = e.EventType
		}
		if e.facets != (olJobFacets{}) {
			r.facets = e.facets
		}
		r.inputs = unionDatasets(r.inputs, e.Inputs)
		r.outputs = unionDatasets(r.outputs, e.Outputs)
		for i, o := range e.Outputs {
			ext := ExternalName(o.Namespace, o.Name)
			if e.cll[i] != nil {
				r.cll[ext] = e.cll[i]
			}
			if raw, ok := o.Facets["schema"]; ok {
				var s olSchema
				if json.Unmarshal(raw, &s) == nil {
					var fs []string
					for _, f := range s.Fields {
						fs = append(fs, f.Name)
					}
					r.schema[ext] = fs
				}
			}
		}
	}
	// Runs in time order, so a later run of a job replaces an earlier one's declaration.
	slices.SortStableFunc(order, func(a, b string) int { return runs[a].time.Compare(runs[b].time) })
	type declKey struct{ s, t, o string }
	decls := map[declKey]Declaration{}
	var keys []declKey
	unmapped := map[string]bool{}
	for _, k := range order {
		r := runs[k]
		jobRef := r.job.Namespace + "/" + r.job.Name
		if r.failed != "" {
			out.Skipped = append(out.Skipped, fmt.Sprintf("%s of job %s: %s", strings.TrimPrefix(r.key, "run:"), jobRef, r.failed))
			continue
		}
		origin := Origin{Kind: OriginOpenLineage, Ref: jobRef}
		tr := TransformRef{Kind: TransformLiteral, Ref: r.facets.identity(jobRef)}
		for _, o := range r.outputs {
			oext := ExternalName(o.Namespace, o.Name)
			for _, in := range r.inputs {
				iext := ExternalName(in.Namespace, in.Name)
				source, sok := names[iext]
				target, tok := names[oext]
				if !sok {
					unmapped[iext] = true
				}
				if !tok {
					unmapped[oext] = true
				}
				if !sok || !tok {
					continue
				}
				d := Declaration{Source: source, Target: target, Relation: Transform, Transform: tr, Origin: origin}
				if len(r.inputs) == 1 && isIdentityCopy(r.cll[oext], r.schema[oext], in) {
					d.Relation, d.Transform = Copy, TransformRef{}
				} else {
					for field, ins := range r.cll[oext] {
						for _, f := range ins {
							if f.Namespace == in.Namespace && f.Name == in.Name {
								d.Columns = append(d.Columns, ColumnEdge{Target: field, Source: f.Field})
							}
						}
					}
				}
				k := declKey{source, target, jobRef}
				if _, seen := decls[k]; !seen {
					keys = append(keys, k)
				}
				decls[k] = d
			}
		}
	}
	for _, k := range keys {
		out.Declarations = append(out.Declarations, decls[k])
	}
	for n := range unmapped {
		out.Unmapped = append(out.Unmapped, n)
	}
	slices.Sort(out.Unmapped)
	return out
}

func unionDatasets(a, b []olDataset) []olDataset {
	out := slices.Clone(a)
	for _, d := range b {
		if !slices.ContainsFunc(out, func(x olDataset) bool { return x.Namespace == d.Namespace && x.Name == d.Name }) {
			out = append(out, d)
		}
	}
	return out
}

// isIdentityCopy reports whether column lineage cll says every output column (every
// schema field, when the schema is known) is the same-named column of in, unchanged.
func isIdentityCopy(cll olFieldMap, schema []string, in olDataset) bool {
	if len(cll) == 0 {
		return false
	}
	for _, f := range schema {
		if _, ok := cll[f]; !ok {
			return false
		}
	}
	for field, ins := range cll {
		if len(ins) != 1 {
			return false
		}
		f := ins[0]
		if !f.Identity || f.Field != field || f.Namespace != in.Namespace || f.Name != in.Name {
			return false
		}
	}
	return true
}

// identity is the literal transform identity of a job's run.
func (f olJobFacets) identity(job string) string {
	sum := func(s string) string {
		h := sha256.Sum256([]byte(s))
		return hex.EncodeToString(h[:])
	}
	switch {
	case f.SQL != "":
		return "openlineage:sql:sha256:" + sum(f.SQL)
	case f.SourceCode != "":
		return "openlineage:source:sha256:" + sum(f.SourceCode)
	case f.CodeURL != "" || f.CodeVer != "":
		return "openlineage:code:" + f.CodeURL + "@" + f.CodeVer
	}
	return "openlineage:job:" + job
}
