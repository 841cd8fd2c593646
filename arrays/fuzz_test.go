package arrays

import (
	"errors"
	"math"
	"testing"
)

// fuzzReader turns fuzz bytes into column contents biased toward collisions
// and edge values: small ids, the sentinel, 2**63 and raw 64-bit values.
type fuzzReader struct{ b []byte }

func (r *fuzzReader) byte() byte {
	if len(r.b) == 0 {
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *fuzzReader) u64() uint64 {
	switch t := r.byte(); t % 8 {
	case 4:
		return Absent
	case 5:
		return Absent - 1
	case 6:
		return 1 << 63
	case 7:
		var v uint64
		for k := range 8 {
			v |= uint64(r.byte()) << (8 * k)
		}
		return v
	default:
		return uint64(t>>3) % 8
	}
}

// fill gives every column of tab n values (aux arrays a fuzzed length);
// a fuzzed byte occasionally changes one row column's length.
func (r *fuzzReader) fill(tab Table, n int) {
	cols := tab.columns()
	skew := r.byte()
	for ci, c := range cols {
		m := n
		if c.aux {
			m = int(r.byte() % 12)
		} else if skew >= 240 && int(skew-240)%len(cols) == ci {
			m = n + 1 - 2*int(skew%2)*min(n, 1)
		}
		if c.u8 != nil {
			*c.u8 = make([]uint8, m)
			for i := range m {
				(*c.u8)[i] = uint8(r.u64())
			}
		} else {
			*c.u64 = make([]uint64, m)
			for i := range m {
				(*c.u64)[i] = r.u64()
			}
		}
	}
}

// fuzzCtx holds the ids 0..5 in every set; 6 and 7 never resolve.
func fuzzCtx(t *testing.T) *Context {
	s, err := NewIDSet(0, 1, 2, 3, 4, 5)
	if err != nil {
		t.Fatal(err)
	}
	return &Context{Names: s, Kinds: s, Fields: s, Types: s, Snapshots: s, Policies: s,
		Algorithms: s, Evidence: s, Transforms: s, GroupingPolicies: s}
}

// checkFuzzErr: a rejection is an *Error naming the table, with a row index
// inside the named column (or -1).
func checkFuzzErr(t *testing.T, err error, tables ...Table) {
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	if e.Code == "" || describe[e.Code] == "" || !errors.Is(err, ErrInvalid) {
		t.Fatalf("bad code in %v", err)
	}
	for _, tab := range tables {
		if string(tab.Kind()) != e.Table {
			continue
		}
		for _, c := range tab.columns() {
			if c.name == e.Column && e.Row >= 0 && e.Row >= c.len() && e.Code != CodeBitmapTail {
				t.Fatalf("%v: row %d outside column of %d", err, e.Row, c.len())
			}
		}
		return
	}
	t.Fatalf("error names unknown table %q: %v", e.Table, err)
}

func seeds(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0})
	f.Add([]byte{4, 1, 8, 16, 24, 32, 4, 0, 8, 16, 0, 0, 0, 0, 8, 8, 8, 8, 1, 9})
	f.Add([]byte{6, 250, 0, 8, 16, 24, 32, 40, 4, 0, 8, 16, 24, 32, 1, 2, 3, 4, 5, 6, 7, 255, 255, 0, 1})
	f.Add([]byte{2, 0, 0, 8, 4, 5, 6, 7, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
}

func FuzzArtifactValidate(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		r := &fuzzReader{b: data}
		a := &ArtifactTable{}
		r.fill(a, int(r.byte()%16))
		err := a.Validate(fuzzCtx(t))
		if err != nil {
			checkFuzzErr(t, err, a)
			return
		}
		self, unres, cyc := naiveCycle(a)
		if self || unres || cyc {
			t.Fatalf("accepted a table with self=%v unresolved=%v cycle=%v: %+v", self, unres, cyc, a)
		}
		seen := map[uint64]bool{}
		for i, id := range a.ArtifactID {
			if id == Absent || seen[id] || a.KindID[i] > 5 || a.NameID[i] > 5 {
				t.Fatalf("accepted bad row %d: %+v", i, a)
			}
			seen[id] = true
		}
	})
}

// fuzzArtifacts is a fixed valid artifact table with ids 0..3.
func fuzzArtifacts() *ArtifactTable {
	return &ArtifactTable{ArtifactID: []uint64{0, 1, 2, 3}, ParentID: []uint64{Absent, 0, 0, 1},
		KindID: []uint8{0, 0, 0, 0}, NameID: []uint64{0, 0, 0, 0}}
}

func FuzzValueValidate(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		r := &fuzzReader{b: data}
		v := &ValueTable{}
		r.fill(v, int(r.byte()%16))
		arts := fuzzArtifacts()
		err := v.Validate(fuzzCtx(t), arts)
		for i := range v.Len() + 2 { // Payload never panics, valid or not
			_, _, _ = v.Payload(i - 1)
		}
		if err != nil {
			checkFuzzErr(t, err, v, arts)
			return
		}
		if err := v.ValidityBitmap.Validate(v.Len()); err != nil {
			t.Fatal(err)
		}
		for i := range v.Len() {
			words, valid, err := v.Payload(i)
			if err != nil || uint64(len(words)) != v.PayloadLength[i] || (!valid && len(words) != 0) ||
				v.ArtifactID[i] > 3 || v.FieldID[i] > 5 || v.TypeID[i] > 5 {
				t.Fatalf("accepted bad row %d: %v %+v", i, err, v)
			}
		}
	})
}

func FuzzObservationValidate(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		r := &fuzzReader{b: data}
		o := &ObservationTable{}
		r.fill(o, int(r.byte()%16))
		arts := fuzzArtifacts()
		err := o.Validate(fuzzCtx(t), arts)
		for i := range o.Len() + 2 {
			_, _ = o.Fingerprint(i - 1)
		}
		if err != nil {
			checkFuzzErr(t, err, o, arts)
			return
		}
		for i := range o.Len() {
			fp, err := o.Fingerprint(i)
			captured := o.StatusID[i] == StatusCaptured
			if err != nil || o.StatusID[i] > 2 || captured != (len(fp) > 0) || o.ObservedAtNs[i] > math.MaxInt64 ||
				o.ArtifactID[i] > 3 || o.SnapshotID[i] > 5 || o.PolicyID[i] > 5 || o.AlgorithmID[i] > 5 {
				t.Fatalf("accepted bad row %d: %v %+v", i, err, o)
			}
		}
	})
}

func FuzzEdgeValidate(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		r := &fuzzReader{b: data}
		e := &EdgeTable{}
		r.fill(e, int(r.byte()%16))
		arts := fuzzArtifacts()
		err := e.Validate(fuzzCtx(t), arts)
		if err != nil {
			checkFuzzErr(t, err, e, arts)
			return
		}
		for i := range e.Len() {
			tr := e.TransformID[i]
			ok := e.SourceID[i] <= 3 && e.TargetID[i] <= 3 && e.EvidenceID[i] <= 5
			switch e.RelationID[i] {
			case RelationCopy:
				ok = ok && tr == Absent
			case RelationTransform:
				ok = ok && tr <= 5
			case RelationDerived:
				ok = ok && (tr == Absent || tr <= 5)
			default:
				ok = false
			}
			if !ok {
				t.Fatalf("accepted bad row %d: %+v", i, e)
			}
		}
	})
}

func FuzzIncidentValidate(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		r := &fuzzReader{b: data}
		obs := &ObservationTable{}
		r.fill(obs, int(r.byte()%8))
		inc := &IncidentTable{}
		r.fill(inc, int(r.byte()%16))
		arts := fuzzArtifacts()
		err := inc.Validate(fuzzCtx(t), arts, obs)
		if err != nil {
			checkFuzzErr(t, err, inc, obs, arts)
			return
		}
		for i := range inc.Len() {
			found := false
			for k, id := range obs.ObservationID {
				if id == inc.ObservationID[i] {
					found = obs.ArtifactID[k] == inc.ArtifactID[i]
				}
			}
			if !found || inc.ArtifactID[i] > 3 || inc.EvidenceID[i] > 5 || inc.GroupingPolicyID[i] > 5 {
				t.Fatalf("accepted bad row %d: %+v / %+v", i, inc, obs)
			}
		}
	})
}

// FuzzTablesValidate runs the combined validator over five fuzzed tables.
func FuzzTablesValidate(f *testing.F) {
	seeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		r := &fuzzReader{b: data}
		ts := &Tables{Artifacts: &ArtifactTable{}, Values: &ValueTable{}, Observations: &ObservationTable{},
			Edges: &EdgeTable{}, Incidents: &IncidentTable{}}
		all := []Table{ts.Artifacts, ts.Values, ts.Observations, ts.Edges, ts.Incidents}
		for _, tab := range all {
			r.fill(tab, int(r.byte()%6))
		}
		if err := ts.Validate(fuzzCtx(t)); err != nil {
			checkFuzzErr(t, err, all...)
		}
	})
}

func FuzzBorrow(f *testing.F) {
	f.Add([]byte{1, 2, 3, 4, 5, 6, 7, 8}, "uint64", 1, 8, false)
	f.Add([]byte{1, 2, 3}, "int8", -1, 0, false)
	f.Add([]byte{1, 2, 3, 4}, "int16", 2, 2, true)
	f.Add([]byte{}, "float64", 0, 0, false)
	f.Fuzz(func(t *testing.T, data []byte, format string, shape, stride int, bigEndian bool) {
		if len(data)+len(format) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		b := Buffer{Data: data, Format: format, BigEndian: bigEndian}
		if shape >= 0 {
			b.Shape = []int{shape}
		}
		if stride != 0 {
			b.Strides = []int{stride}
		}
		v, err := Borrow(b)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || !errors.Is(err, ErrBuffer) {
				t.Fatalf("error %v", err)
			}
			return
		}
		if v.Len()*v.DType().Size() != len(data) {
			t.Fatalf("Len %d of %d bytes", v.Len(), len(data))
		}
		for i := range v.Len() + 2 {
			_, _ = v.Uint64At(i - 1)
			_, _ = v.Int64At(i - 1)
		}
		if _, err := v.AppendUint64s(nil); err != nil && CodeOf(err) != CodeRange {
			t.Fatal(err)
		}
	})
}

// FuzzDecode decodes frames with fuzzed versions, column sets, dtypes and
// bytes, then validates what decodes.
func FuzzDecode(f *testing.F) {
	f.Add("1.0", byte(0), []byte{0, 0, 0, 0, 0, 0, 0, 0})
	f.Add("1.1", byte(1), []byte{1, 2, 3})
	f.Add("1.0", byte(3), []byte{})
	f.Fuzz(func(t *testing.T, version string, table byte, data []byte) {
		if len(version)+len(data) > 1<<16 { // bounds each run, and so each minimization
			t.Skip("input over 64 KiB")
		}
		kind := TableKinds[int(table)%len(TableKinds)]
		tab, _ := NewTable(kind)
		fr := Frame{Version: version, Table: kind, Columns: map[string]*View{}}
		r := &fuzzReader{b: data}
		for _, c := range tab.columns() {
			sel := r.byte()
			if sel%16 == 15 {
				continue // missing column
			}
			dt := c.dtype()
			if sel%16 == 14 {
				dt = DType(1 + r.byte()%8)
			}
			n := int(r.byte() % 5)
			raw := make([]byte, n*dt.Size())
			for i := range raw {
				raw[i] = r.byte()
			}
			v, err := FromBytes(raw, dt, Options{ReadOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			if sel%16 == 13 {
				v.Release()
			}
			fr.Columns[c.name] = v
		}
		if r.byte()%8 == 7 {
			fr.Columns["extra"], _ = FromBytes(nil, Uint8, Options{})
		}
		got, err := Decode(fr)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || (!errors.Is(err, ErrSchema) && !errors.Is(err, ErrReleased)) {
				t.Fatalf("error %v", err)
			}
			if version != SchemaVersion && e.Code != CodeSchemaVersion {
				t.Fatalf("version %q not reported first: %v", version, err)
			}
			return
		}
		ts := &Tables{Artifacts: fuzzArtifacts()}
		switch g := got.(type) {
		case *ArtifactTable:
			ts.Artifacts = g
		case *ValueTable:
			ts.Values = g
		case *ObservationTable:
			ts.Observations = g
		case *EdgeTable:
			ts.Edges = g
		case *IncidentTable:
			ts.Incidents, ts.Observations = g, &ObservationTable{}
		}
		if err := ts.Validate(fuzzCtx(t)); err != nil {
			checkFuzzErr(t, err, got, ts.Artifacts, ts.Observations)
		}
	})
}
