package report

import (
	"bufio"
	"cmp"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/pipewhy/pipewhy/compare"
	"github.com/pipewhy/pipewhy/internal/human"
	"github.com/pipewhy/pipewhy/why"
)

//go:embed assets/page.html assets/page.css assets/errors.js assets/page.js
var assets embed.FS

var (
	pageTemplate = template.Must(template.ParseFS(assets, "assets/page.html"))
	pageCSS      = mustAsset("assets/page.css")
	errorsJS     = mustAsset("assets/errors.js")
	pageJS       = mustAsset("assets/page.js")
)

func mustAsset(name string) string {
	b, err := assets.ReadFile(name)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// Write writes p as one self-contained HTML page: the CSS and the two small scripts
// inline, the graph and the bars as inline SVG, nothing loaded from anywhere. Every
// value from the repository goes through html/template's contextual escaping; the
// page's Content-Security-Policy allows only its own script and style (by SHA-256) and
// data: images, so nothing it holds can load or run anything else.
func Write(w io.Writer, p *Page) error { return write(w, p, nil) }

// WriteFile writes p to path through a temporary file beside it, renamed into place
// when complete and synced (a reader never sees half a page; an existing file is
// replaced whole),
// and returns the page's size. Failing to write is CodeWrite.
func WriteFile(path string, p *Page) (int64, error) {
	fail := func(err error) (int64, error) {
		return 0, &Error{Code: CodeWrite, Msg: "cannot write " + path, Err: err}
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".pipewhy-report-*.html")
	if err != nil {
		return fail(err)
	}
	defer func() { _ = os.Remove(tmp.Name()) }() // after the rename: nothing to remove
	if err := Write(tmp, p); err != nil {
		tmp.Close()
		return 0, err
	}
	st, err := tmp.Stat()
	if err == nil {
		err = tmp.Chmod(0o644)
	}
	if err == nil {
		err = tmp.Sync() // the page is whole on disk before its name is
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fail(err)
	}
	return st.Size(), nil
}

// write is Write with extra scripts at the end of the body (tests: probes the CSP lets
// run).
func write(w io.Writer, p *Page, extra []string) error {
	v := newView(p)
	v.CSS = template.CSS(pageCSS)
	v.HeadScripts = []template.JS{template.JS(errorsJS)}
	v.BodyScripts = []template.JS{template.JS(pageJS)}
	for _, s := range extra {
		v.BodyScripts = append(v.BodyScripts, template.JS(s))
	}
	var scripts []string
	for _, s := range append(slices.Clone(v.HeadScripts), v.BodyScripts...) {
		scripts = append(scripts, "'"+hashSource(string(s))+"'")
	}
	v.CSP = "default-src 'none'; script-src " + strings.Join(scripts, " ") + "; style-src '" + hashSource(pageCSS) +
		"'; img-src data:; base-uri 'none'; form-action 'none'"
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := pageTemplate.Execute(bw, v); err != nil {
		return &Error{Code: CodeRender, Msg: "rendering the page", Err: err}
	}
	if err := bw.Flush(); err != nil {
		return &Error{Code: CodeRender, Msg: "writing the page", Err: err}
	}
	return nil
}

// hashSource is a CSP source expression for an inline script or style.
func hashSource(s string) string {
	h := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(h[:])
}

// The words and icons of statuses and verdicts: a colour is never the only signal.
var (
	statusIcon = map[Status]string{Incident: "⚠", Failed: "!", Changed: "Δ", Unchanged: "=", New: "+", Unobserved: "?"}
	statusWord = map[Status]string{Incident: "incident", Failed: "error", Changed: "changed", Unchanged: "unchanged",
		New: "first snapshot", Unobserved: "unobserved"}
)

type verdictText struct{ icon, word, label, meaning string }

var verdicts = map[why.Verdict]verdictText{
	why.CopyMismatch:     {"✗", "copy mismatch", "mismatch", "a COPY whose target does not hold its source's records (proven from the fingerprints)"},
	why.CopyVerified:     {"✓", "copy verified", "verified", "a COPY whose target holds exactly its source's records"},
	why.TransformChanged: {"ƒ", "transform changed", "transform", "the transform differs between the target's two runs"},
	why.SourceChanged:    {"Δ", "source changed", "changed", "the source changed: consistent with the target's change"},
	why.SourceUnchanged:  {"=", "source unchanged", "unchanged", "the source did not change"},
	why.Unobserved:       {"?", "unobserved", "unobserved", "no snapshot, or none that can be compared, to judge by"},
	why.Unexplained:      {"!", "unexplained", "unexplained", "changed though its inputs and transform did not"},
	"":                   {"–", "not judged", "not judged", "the target has fewer than two snapshots, or the edge was declared after its last scan"},
}

// edgeVerdicts are the verdicts an edge can show, in the legend's order.
var edgeVerdicts = []why.Verdict{why.CopyMismatch, why.CopyVerified, why.TransformChanged, why.SourceChanged, why.SourceUnchanged, why.Unobserved, ""}

// maxEdgeWords is the number of edges up to which each edge's label holds its verdict's
// word; a larger graph labels them with the icon only (the words are in each edge's
// tooltip and in the artifacts' input lists).
const maxEdgeWords = 200

// maxLabel is the number of runes of an artifact name shown in its graph node.
const maxLabel = 26

type view struct {
	Title, Generated string
	Lineage          uint64
	CSP              string
	CSS              template.CSS
	HeadScripts      []template.JS
	BodyScripts      []template.JS
	Counts           []countView
	Legend           []legendView
	Graph            graphView
	Artifacts        []artifactView
}

type countView struct {
	Status     Status
	Icon, Word string
	N          int
}

type legendView struct{ Icon, Word, Meaning string }

type graphView struct {
	Width, Height string
	Nodes         []nodeView
	Edges         []edgeView
}

type nodeView struct {
	ID, Name, Label string
	Status          Status
	Icon, Word, Sub string
	X, Y, W, H, TX  string
	TY1, TY2        string
}

type edgeView struct {
	Source, Target, Relation string
	Verdict                  why.Verdict
	Word, D, Label           string
	LX, LY, LW, TX, TY       string
}

type artifactView struct {
	ID, Name   string
	Status     Status
	Icon, Word string
	Latest     *latestView
	Downstream string
	Error      string
	Strip      *stripView
	Change     *changeView
	Causes     []causeView
	MoreCauses int
	Inputs     []inputView
	Incidents  []incidentView
}

type latestView struct{ Short, When, Rows, Resolution, Coverage, Address string }

type stripView struct {
	Width, Height string
	Same, Changed string // path data: the bars of snapshots unchanged (or first), changed
	Marks         []markView
	Title         string // every snapshot's rows and changes, in words
	Summary       string
	N             int
}

type markView struct{ X, Y, Text string }

type changeView struct {
	Rows, Reason string
	Records      *recordsView
	Fields       []fieldView
	Columns      []string
	Schema       []string
	Examples     []compare.Example
	MoreExamples string
}

type recordsView struct{ Added, Removed, Changed, Unchanged string }

type fieldView struct {
	Name, N string
	Percent int
}

type causeView struct {
	Verdict              why.Verdict
	Icon, Word, Artifact string
	Anchor               string // the artifact's section, when the page has one
	Detail               string
	Examples             []string
}

type inputView struct {
	Source, Relation, Transform string
	Verdict                     why.Verdict
	Icon, Word, Detail          string
}

type incidentView struct {
	ID                    uint64
	Reason, Summary, Last string
	Count                 int
}

func newView(p *Page) *view {
	v := &view{Generated: human.Time(p.GeneratedAtNs), Lineage: p.Lineage}
	switch len(p.Scoped) {
	case 0:
		v.Title = fmt.Sprintf("%d artifacts", len(p.Artifacts))
	case 1:
		v.Title = p.Scoped[0] + " and its upstream lineage"
	default:
		v.Title = strings.Join(p.Scoped, ", ") + " and their upstream lineage"
	}
	for _, s := range Statuses {
		n := p.Count(s)
		if n > 0 || s == Incident || s == Changed || s == Unchanged {
			v.Counts = append(v.Counts, countView{Status: s, Icon: statusIcon[s], Word: statusWord[s], N: n})
		}
	}
	for _, vd := range edgeVerdicts {
		t := verdicts[vd]
		v.Legend = append(v.Legend, legendView{Icon: t.icon, Word: t.word, Meaning: t.meaning})
	}
	index := map[string]int{}
	for i, a := range p.Artifacts {
		index[a.Name] = i
	}
	pairs := make([][2]int, len(p.Edges))
	for j, e := range p.Edges {
		pairs[j] = [2]int{index[e.Source], index[e.Target]}
	}
	pl := layout(len(p.Artifacts), pairs)
	v.Graph = graphView{Width: num(pl.Width), Height: num(pl.Height)}
	for i, a := range p.Artifacts {
		at := pl.Nodes[i]
		v.Graph.Nodes = append(v.Graph.Nodes, nodeView{ID: anchor(i), Name: a.Name, Label: truncate(a.Name, maxLabel),
			Status: a.Status, Icon: statusIcon[a.Status], Word: statusWord[a.Status], Sub: nodeSub(a),
			X: num(at.X), Y: num(at.Y), W: num(nodeW), H: num(nodeH), TX: num(at.X + 10), TY1: num(at.Y + 18), TY2: num(at.Y + 35)})
	}
	words := len(p.Edges) <= maxEdgeWords
	for j, e := range p.Edges {
		t := verdicts[e.Verdict]
		ev := edgeView{Source: e.Source, Target: e.Target, Relation: e.Relation, Verdict: e.Verdict, Word: t.word, D: pl.Paths[j]}
		l := pl.Labels[j]
		ev.Label, ev.TX, ev.TY = t.icon, num(l.X), num(l.Y+4)
		if words {
			// The word on a white ground; a large graph has the icon alone on the line.
			ev.Label += " " + t.label
			w := 8 + 6.5*float64(len([]rune(ev.Label)))
			ev.LX, ev.LY, ev.LW = num(l.X-w/2), num(l.Y-7), num(w)
		}
		v.Graph.Edges = append(v.Graph.Edges, ev)
	}
	// Sections: the strongest status first (incidents, errors, changes), then by name;
	// anchors keep the name order of the graph.
	for i, a := range p.Artifacts {
		v.Artifacts = append(v.Artifacts, artifactOf(p, i, a, index))
	}
	slices.SortStableFunc(v.Artifacts, func(a, b artifactView) int {
		return cmp.Compare(slices.Index(Statuses, a.Status), slices.Index(Statuses, b.Status))
	})
	return v
}

func anchor(i int) string { return fmt.Sprintf("a-%d", i) }

// truncate shortens s to n runes, ending with "…" when cut.
func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

// nodeSub is the second line of a graph node: the last change's counts.
func nodeSub(a *Artifact) string {
	if a.Explanation == nil || !a.Explanation.Changed {
		return ""
	}
	c := a.Explanation.Change
	if c.Records == nil {
		return fmt.Sprintf("%s → %s rows", human.Commas(c.Rows[0]), human.Commas(c.Rows[1]))
	}
	return fmt.Sprintf("+%s −%s ~%s", human.Commas(c.Records.Added), human.Commas(c.Records.Removed), human.Commas(c.Records.Changed))
}

func artifactOf(p *Page, i int, a *Artifact, index map[string]int) artifactView {
	av := artifactView{ID: anchor(i), Name: a.Name, Status: a.Status, Icon: statusIcon[a.Status], Word: statusWord[a.Status], Error: a.Error}
	if l := a.Latest; l != nil {
		short := l.ID
		if len(short) > 12 {
			short = short[:12]
		}
		av.Latest = &latestView{Short: short, When: human.Time(l.FinishedAtNs), Rows: human.Commas(l.Rows), Resolution: l.Resolution, Coverage: l.Coverage, Address: l.Address}
	}
	var consumers []string
	for _, e := range p.Edges {
		if e.Source == a.Name {
			consumers = append(consumers, e.Target)
		}
		if e.Target == a.Name {
			t := verdicts[e.Verdict]
			in := inputView{Source: e.Source, Relation: e.Relation, Transform: e.Transform, Verdict: e.Verdict, Icon: t.icon, Word: t.word}
			switch e.Verdict {
			case why.CopyMismatch, why.TransformChanged, why.Unobserved:
				in.Detail = e.Detail // the others' details only repeat the verdict
			}
			av.Inputs = append(av.Inputs, in)
		}
	}
	av.Downstream = strings.Join(slices.Compact(consumers), ", ")
	av.Strip = strip(a.History)
	if x := a.Explanation; x != nil {
		av.Change = changeOf(x.Change)
		for k, rc := range x.RootCauses {
			if k == p.RootCauses {
				av.MoreCauses = len(x.RootCauses) - k
				break
			}
			av.Causes = append(av.Causes, causeOf(x, rc, index))
		}
	}
	for _, in := range a.Incidents {
		av.Incidents = append(av.Incidents, incidentView{ID: in.ID, Reason: in.Reason, Summary: in.Summary, Count: in.Count, Last: human.Time(in.LastSeenNs)})
	}
	return av
}

func changeOf(c *why.Change) *changeView {
	cv := &changeView{Rows: fmt.Sprintf("%s → %s records", human.Commas(c.Rows[0]), human.Commas(c.Rows[1])), Columns: c.Columns, Examples: c.Example}
	if !c.Comparable {
		cv.Reason = c.Reason
	}
	if r := c.Records; r != nil {
		cv.Records = &recordsView{Added: human.Commas(r.Added), Removed: human.Commas(r.Removed), Changed: human.Commas(r.Changed), Unchanged: human.Commas(r.Unchanged)}
		if more := r.Changed - uint64(len(c.Example)); r.Changed > uint64(len(c.Example)) && len(c.Example) > 0 {
			cv.MoreExamples = human.Commas(more)
		}
		for name, n := range c.Fields {
			pct := 0
			if r.Changed > 0 {
				pct = max(1, int((n*100+r.Changed/2)/r.Changed))
			}
			cv.Fields = append(cv.Fields, fieldView{Name: name, N: human.Commas(n), Percent: min(pct, 100)})
		}
		slices.SortFunc(cv.Fields, func(a, b fieldView) int {
			return cmp.Or(cmp.Compare(c.Fields[b.Name], c.Fields[a.Name]), strings.Compare(a.Name, b.Name))
		})
	}
	for _, s := range c.Schema {
		switch s.Kind {
		case "renamed":
			cv.Schema = append(cv.Schema, fmt.Sprintf("renamed %s → %s", s.OldName, s.Name))
		case "retyped":
			cv.Schema = append(cv.Schema, fmt.Sprintf("retyped %s: %s → %s", s.Name, s.OldType, s.NewType))
		default:
			cv.Schema = append(cv.Schema, s.Kind+" "+s.Name)
		}
	}
	return cv
}

func causeOf(x *why.Explanation, rc why.RootCause, index map[string]int) causeView {
	t := verdicts[rc.Verdict]
	cv := causeView{Verdict: rc.Verdict, Icon: t.icon, Word: t.word, Artifact: rc.Artifact, Detail: rc.Detail}
	if i, ok := index[rc.Artifact]; ok {
		cv.Anchor = anchor(i) // its own section shows its change
	}
	if rc.Verdict == why.CopyMismatch {
		for _, er := range x.Edges {
			if er.Target == rc.Artifact && er.Verdict == why.CopyMismatch && er.Copy != nil {
				for _, ex := range er.Copy.Examples {
					cv.Examples = append(cv.Examples, er.DescribeExample(ex))
				}
			}
		}
	}
	return cv
}

// Geometry of a history strip: one bar per snapshot, its height the rows.
const (
	barStep = 34
	barW    = 16
	barTop  = 14 // room for the mark above the tallest bar
	barMax  = 34
)

// strip draws a history strip: a bar per snapshot, as tall as its rows, drawn as two
// paths (unchanged or first; changed), with a mark above each bar after the first (Δn:
// n records added, removed or changed; Δ: changed, not counted; =: unchanged).
func strip(steps []Step) *stripView {
	if len(steps) == 0 {
		return nil
	}
	var most uint64
	for _, s := range steps {
		most = max(most, s.Rows)
	}
	sv := &stripView{Width: num(float64(len(steps)*barStep + 6)), Height: num(barTop + barMax + 2), N: len(steps)}
	var same, chg strings.Builder
	var rows, changes []string
	changed := 0
	for i, s := range steps {
		h := float64(barMax)
		if most > 0 {
			h = max(1, float64(barMax)*float64(s.Rows)/float64(most))
		}
		x := float64(4 + i*barStep)
		bar := &same
		if s.Changed && !s.First {
			bar = &chg
			changed++
		}
		fmt.Fprintf(bar, "M%s %dv-%sh%dv%sz", num(x), barTop+barMax, num(h), barW, num(h))
		rows = append(rows, human.Commas(s.Rows))
		if s.First {
			continue
		}
		mark, change := "=", "unchanged"
		switch r := s.Records; {
		case !s.Changed:
		case r != nil:
			mark = "Δ" + compact(r.Added+r.Removed+r.Changed)
			change = fmt.Sprintf("+%s −%s ~%s", human.Commas(r.Added), human.Commas(r.Removed), human.Commas(r.Changed))
		default:
			mark, change = "Δ", "changed"
		}
		if s.Note != "" {
			change += " (" + s.Note + ")"
		}
		changes = append(changes, change)
		sv.Marks = append(sv.Marks, markView{X: num(x + barW/2), Y: num(barTop + barMax - h - 3), Text: mark})
	}
	sv.Same, sv.Changed = same.String(), chg.String()
	sv.Title = "rows " + strings.Join(rows, ", ")
	if len(changes) > 0 {
		sv.Title += "; changes " + strings.Join(changes, ", ")
	}
	first, last := steps[0], steps[len(steps)-1]
	sv.Summary = fmt.Sprintf("%s → %s rows over %d snapshot%s; changed at %d of %d scans",
		human.Commas(first.Rows), human.Commas(last.Rows), len(steps), human.Plural(len(steps)), changed, len(steps)-1)
	return sv
}

// compact writes n in at most 4 characters: 999, 1.2k, 34k, 5.6M.
func compact(n uint64) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 10_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	case n < 1_000_000:
		return fmt.Sprintf("%dk", n/1000)
	case n < 10_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	}
	return fmt.Sprintf("%dM", n/1_000_000)
}
