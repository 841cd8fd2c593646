package retention

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

var now = time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)

// sc is one scan of a test history: its name (artifact and number, "a3") and age.
type sc struct {
	name string
	age  time.Duration
}

// idOf turns a test name into a snapshot id: its bytes as hex, zero-padded to 32 digits.
func idOf(name string) string { return fmt.Sprintf("%032x", name) }

// history builds a History from scans in log order: each published (unless its name is
// in gone: removed by an earlier prune), each with its artifact's previous scan as its C5
// parent, as scan.Run links them; extra are published snapshots the log does not name.
func history(scans []sc, gone []string, extra ...string) History {
	h := History{Published: map[string]Published{}}
	prev := map[string]string{}
	for _, s := range scans {
		art := strings.TrimRight(s.name, "0123456789")
		id := idOf(s.name)
		at := uint64(now.Add(-s.age).UnixNano())
		h.Log = append(h.Log, Entry{ID: id, Artifact: art, FinishedAtNs: at})
		if !slices.Contains(gone, s.name) {
			h.Published[id] = Published{ID: id, Parent: prev[art], FinishedAtNs: at}
		}
		prev[art] = id
	}
	for _, name := range extra {
		h.Published[idOf(name)] = Published{ID: idOf(name), FinishedAtNs: uint64(now.UnixNano())}
	}
	return h
}

// verdicts renders a plan as "name: codes" lines ("-" for a removal), in plan order.
func verdicts(t *testing.T, p *Plan) []string {
	t.Helper()
	var out []string
	for _, d := range p.Decisions {
		name := d.ID
		for _, n := range []string{"a", "b", "src", "dst", "x"} {
			for i := range 10 {
				if idOf(fmt.Sprint(n, i)) == d.ID {
					name = fmt.Sprint(n, i)
				}
			}
		}
		if d.Remove != (len(d.Reasons) == 0) {
			t.Errorf("%s: remove %v with reasons %v", name, d.Remove, d.Reasons)
		}
		var codes []string
		for _, r := range d.Reasons {
			codes = append(codes, r.Code)
		}
		slices.Sort(codes)
		codes = slices.Compact(codes)
		if len(codes) == 0 {
			codes = []string{"-"}
		}
		out = append(out, name+": "+strings.Join(codes, ","))
	}
	return out
}

const hour = time.Hour

// five is one artifact scanned five times, an hour apart, a5 the newest.
var five = []sc{{"a1", 4 * hour}, {"a2", 3 * hour}, {"a3", 2 * hour}, {"a4", hour}, {"a5", 0}}

func TestDecide(t *testing.T) {
	dependsOn := func(target, source string) func(uint64) (Graph, error) {
		return func(uint64) (Graph, error) {
			return Graph{Version: "v1", Inputs: func(a string) []string {
				if a == target {
					return []string{source}
				}
				return nil
			}}, nil
		}
	}
	// src is scanned more often than dst, which is a transform of it.
	interleaved := []sc{{"src1", 7 * hour}, {"dst1", 6 * hour}, {"src2", 5 * hour}, {"src3", 4 * hour},
		{"dst2", 3 * hour}, {"src4", 2 * hour}, {"src5", hour}}
	for _, tc := range []struct {
		name    string
		rule    Rule
		h       History
		want    []string
		removed []string // in removal order, when checked
	}{{
		// a5 the newest, a4 the rule; a3 as a4's parent and its explanation's previous
		// scan; a3's own parent a2 is not followed.
		name: "keep-last", rule: Rule{KeepLast: 2}, h: history(five, nil),
		want:    []string{"a5: latest", "a4: explains,keep-last,parent", "a3: explains,parent", "a2: -", "a1: -"},
		removed: []string{"a2", "a1"},
	}, {
		name: "keep-last 1 keeps the newest and its parent", rule: Rule{KeepLast: 1}, h: history(five, nil),
		want: []string{"a5: latest", "a4: explains,parent", "a3: -", "a2: -", "a1: -"},
	}, {
		name: "keep-last larger than the history", rule: Rule{KeepLast: 9}, h: history(five, nil),
		want: []string{"a5: latest", "a4: explains,keep-last,parent", "a3: explains,keep-last,parent", "a2: explains,keep-last,parent", "a1: explains,keep-last,parent"},
	}, {
		// a3 is exactly 2h old: kept by the rule, and its previous scan a2 with it.
		name: "keep-within at the boundary", rule: Rule{KeepWithin: 2 * hour}, h: history(five, nil),
		want: []string{"a5: keep-within,latest", "a4: explains,keep-within,parent", "a3: explains,keep-within,parent", "a2: explains,parent", "a1: -"},
	}, {
		// One nanosecond older: a3 is only a4's parent now, and a2 goes.
		name: "keep-within one past the boundary", rule: Rule{KeepWithin: 2*hour - time.Nanosecond}, h: history(five, nil),
		want: []string{"a5: keep-within,latest", "a4: explains,keep-within,parent", "a3: explains,parent", "a2: -", "a1: -"},
	}, {
		name: "either rule keeps", rule: Rule{KeepLast: 1, KeepWithin: hour}, h: history(five, nil),
		want: []string{"a5: keep-within,latest", "a4: explains,keep-within,parent", "a3: explains,parent", "a2: -", "a1: -"},
	}, {
		// a2 is evidence of incidents 3 and 7: kept, and its parent a1 with it.
		name: "incident evidence", rule: Rule{KeepLast: 1},
		h: func() History {
			h := history(five, nil)
			h.Evidence = map[string][]uint64{idOf("a2"): {3, 7}, idOf("gone"): {1}}
			return h
		}(),
		want: []string{"a5: latest", "a4: explains,parent", "a3: -", "a2: incident", "a1: explains,parent"},
	}, {
		// a3 was removed by an earlier prune: the rule counts published scans only, and a4's
		// parent and previous scan, a3, are gone.
		name: "already removed scans", rule: Rule{KeepLast: 2}, h: history(five, []string{"a3"}),
		want: []string{"a5: latest", "a4: explains,keep-last,parent", "a2: -", "a1: -"},
	}, {
		name: "multiple artifacts", rule: Rule{KeepLast: 1},
		h:    history([]sc{{"a1", 5 * hour}, {"b1", 4 * hour}, {"a2", 3 * hour}, {"b2", 2 * hour}, {"a3", hour}, {"b3", 0}}, nil),
		want: []string{"a3: latest", "a2: explains,parent", "a1: -", "b3: latest", "b2: explains,parent", "b1: -"},
	}, {
		name: "one artifact selected", rule: Rule{KeepLast: 1, Artifacts: []string{"b"}},
		h:    history([]sc{{"a1", 5 * hour}, {"b1", 4 * hour}, {"a2", 3 * hour}, {"b2", 2 * hour}, {"a3", hour}, {"b3", 0}}, nil),
		want: []string{"a3: latest,not-selected", "a2: explains,not-selected,parent", "a1: explains,not-selected,parent", "b3: latest", "b2: explains,parent", "b1: -"},
	}, {
		name: "unlogged snapshots", rule: Rule{KeepLast: 1}, h: history(five[3:], nil, "x1"),
		want: []string{"a5: latest", "a4: explains,parent", "x1: unlogged"},
	}, {
		// Without lineage, dst2's explanation reads only dst1.
		name: "no lineage", rule: Rule{KeepLast: 1}, h: history(interleaved, nil),
		want: []string{"dst2: latest", "dst1: explains,parent", "src5: latest", "src4: explains,parent", "src3: -", "src2: -", "src1: -"},
	}, {
		// dst depends on src: explaining dst2 (after dst1) reads src's newest scan at or
		// before dst1 (src1) and at or before dst2 (src3).
		name: "lineage", rule: Rule{KeepLast: 1},
		h:    func() History { h := history(interleaved, nil); h.Lineage = dependsOn("dst", "src"); return h }(),
		want: []string{"dst2: latest", "dst1: explains,parent", "src5: latest", "src4: explains,parent", "src3: explains", "src2: -", "src1: explains"},
	}, {
		// The upstream closure is followed: x feeds src, src feeds dst.
		name: "lineage closure", rule: Rule{KeepLast: 1},
		h: func() History {
			h := history([]sc{{"x1", 9 * hour}, {"x2", 8 * hour}, {"src1", 7 * hour}, {"dst1", 6 * hour}, {"x3", 5 * hour},
				{"src2", 4 * hour}, {"dst2", 3 * hour}, {"x4", 2 * hour}, {"x5", hour}}, nil)
			h.Lineage = func(uint64) (Graph, error) {
				return Graph{Inputs: func(a string) []string {
					return map[string][]string{"dst": {"src"}, "src": {"x"}}[a]
				}}, nil
			}
			return h
		}(),
		want: []string{"dst2: latest", "dst1: explains,parent", "src2: explains,latest", "src1: explains,parent",
			"x5: latest", "x4: explains,parent", "x3: explains", "x2: explains", "x1: -"},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			tc.rule.Now = now
			p, err := Decide(tc.rule, tc.h)
			if err != nil {
				t.Fatal(err)
			}
			if got := verdicts(t, p); !slices.Equal(got, tc.want) {
				t.Errorf("got\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(tc.want, "\n  "))
			}
			if tc.removed != nil {
				var got []string
				for _, d := range p.Removals() {
					got = append(got, d.ID)
				}
				var want []string
				for _, n := range tc.removed {
					want = append(want, idOf(n))
				}
				if !slices.Equal(got, want) {
					t.Errorf("removal order %v, want %v", got, want)
				}
			}
		})
	}
}

// TestDecideReasons: the details say what a person needs: which kept snapshot needs a
// parent or an input, which incidents, which lineage version.
func TestDecideReasons(t *testing.T) {
	h := history([]sc{{"src1", 3 * hour}, {"dst1", 2 * hour}, {"src2", hour}, {"dst2", 0}}, nil)
	h.Evidence = map[string][]uint64{idOf("src1"): {4}}
	h.Lineage = func(uint64) (Graph, error) {
		return Graph{Version: "0123", Inputs: func(a string) []string { return map[string][]string{"dst": {"src"}}[a] }}, nil
	}
	p, err := Decide(Rule{KeepLast: 1, Now: now}, h)
	if err != nil {
		t.Fatal(err)
	}
	find := func(name, code string) Reason {
		for _, d := range p.Decisions {
			if d.ID == idOf(name) {
				for _, r := range d.Reasons {
					if r.Code == code {
						return r
					}
				}
			}
		}
		t.Fatalf("%s has no reason %s", name, code)
		return Reason{}
	}
	if r := find("dst1", ReasonParent); r.Of != idOf("dst2") || r.Detail != "the parent of "+idOf("dst2") {
		t.Errorf("parent: %+v", r)
	}
	if r := find("src2", ReasonExplains); r.Of != idOf("dst2") || r.Lineage != "0123" || r.Detail != "read by the explanation of the change of "+idOf("dst2") {
		t.Errorf("explains: %+v", r)
	}
	if r := find("src1", ReasonIncident); !slices.Equal(r.Incidents, []uint64{4}) || r.Detail != "evidence of incident 4" {
		t.Errorf("incident: %+v", r)
	}
	if r := find("dst2", ReasonLatest); r.Detail != "the newest scan of dst" {
		t.Errorf("latest: %+v", r)
	}
}

func TestRuleValidate(t *testing.T) {
	for _, r := range []Rule{{}, {KeepLast: -1}, {KeepWithin: -1}, {KeepLast: 1, Artifacts: []string{""}}} {
		if _, err := Decide(r, History{}); CodeOf(err) != CodeRule {
			t.Errorf("%+v: %v", r, err)
		}
	}
	// An artifact the log does not name is a mistake, not a prune of nothing.
	if _, err := Decide(Rule{KeepLast: 1, Artifacts: []string{"a", "typo"}}, history(five, nil)); CodeOf(err) != CodeRule || !strings.Contains(err.Error(), `"typo"`) {
		t.Errorf("unknown artifact: %v", err)
	}
}
