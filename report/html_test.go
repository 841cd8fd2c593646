package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/internal/browsertest"
	"github.com/pipewhy/pipewhy/lineage"
	"github.com/pipewhy/pipewhy/why"
	"golang.org/x/net/html"
)

// The payloads of the escaping tests: each would run a script, load something, or
// break out of its context if it reached the page unescaped. The scripts set
// data-pwned on <html>, which the browser tests read.
const (
	xssName   = `<script>document.documentElement.setAttribute("data-pwned","name")</script>`
	xssImg    = `"><img src=x onerror="document.documentElement.setAttribute('data-pwned','img')">`
	xssStyle  = `</style><script>document.documentElement.setAttribute("data-pwned","style")</script>`
	xssURL    = `javascript:document.documentElement.setAttribute('data-pwned','url')`
	xssSVG    = `"><svg onload="document.documentElement.setAttribute('data-pwned','svg')">`
	xssQuotes = `' onmouseover='document.documentElement.setAttribute("data-pwned","quote")`
)

// csvField quotes s as a CSV field.
func csvField(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// hostile builds a repository whose artifact names, column names, data values and
// transform hold the payloads: a COPY xssName → xssImg that differs in one value (so
// the copy's examples show both values), and a TRANSFORM into xssURL whose transform
// is a payload.
func hostile(t testing.TB) *fixture {
	f := newFixture(t)
	f.declare(lineage.Declaration{Source: xssName, Target: xssImg, Relation: lineage.Copy},
		lineage.Declaration{Source: xssImg, Target: xssURL, Relation: lineage.Transform,
			Transform: lineage.TransformRef{Kind: lineage.TransformLiteral, Ref: xssSVG}})
	header := "id," + csvField(xssStyle) + "," + csvField(xssURL)
	row := func(id, a, b string) string { return id + "," + csvField(a) + "," + csvField(b) }
	v1 := []string{header, row("1", xssImg, xssSVG), row("2", "plain", xssQuotes)}
	v2 := []string{header, row("1", xssSVG, xssImg), row("2", xssURL, xssQuotes), row("3", xssName, xssStyle)}
	f.scan(xssName, v1...)
	f.scan(xssImg, v1...)
	f.scan(xssURL, "k,"+csvField(xssName), "1,"+csvField(xssImg))
	f.scan(xssName, v2...)
	f.scan(xssImg, v2[0], v2[1], row("2", xssURL, xssName), v2[3])
	f.scan(xssURL, "k,"+csvField(xssName), "1,"+csvField(xssSVG))
	return f
}

func render(t testing.TB, p *Page, extra ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := write(&b, p, extra); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// Every payload is escaped: the page's bytes hold no element, attribute or URL that a
// payload made, and each payload is in the page (so the test is not vacuous) in its
// escaped form.
func TestWriteEscapes(t *testing.T) {
	f := hostile(t)
	p := f.mustBuild(Options{})
	for _, a := range p.Artifacts {
		if a.Explanation == nil {
			t.Fatalf("%s was not explained: %s", a.Name, a.Error)
		}
	}
	if e := p.edge(xssName, xssImg); e == nil || e.Verdict != "copy_mismatch" {
		t.Fatalf("the copy between the payload artifacts: %+v", e)
	}
	page := render(t, p)
	s := string(page)
	// No payload is in the bytes as it was given.
	for _, raw := range []string{xssName, xssImg, xssStyle, xssURL, xssSVG, xssQuotes} {
		if strings.Contains(s, raw) {
			t.Errorf("the page holds the payload %q unescaped", raw)
		}
	}
	if n := strings.Count(s, "<script"); n != 2 {
		t.Errorf("%d <script elements, want the page's 2", n)
	}
	if n := strings.Count(s, "</style>"); n != 1 {
		t.Errorf("%d </style>, want the page's 1", n)
	}
	// The payloads are there, escaped (html/template writes < as &lt; and " as &#34;).
	for _, want := range []string{"&lt;script&gt;document.documentElement.setAttribute(&#34;data-pwned&#34;,&#34;name&#34;)&lt;/script&gt;",
		"&lt;/style&gt;&lt;script&gt;", "&#34;&gt;&lt;img src=x onerror="} {
		if !strings.Contains(s, want) {
			t.Errorf("the page does not hold the escaped payload %q", want)
		}
	}
	// As a browser parses it: no element a payload makes, no event handler, no style
	// attribute, every link one of the page's own anchors and every other URL data:.
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(browsertest.Elements(doc, "script")) + len(browsertest.Elements(doc, "img")) + len(browsertest.Elements(doc, "iframe")); n != 2 {
		t.Errorf("%d script, img and iframe elements, want the page's 2 scripts", n)
	}
	for _, e := range browsertest.FindAll(doc, func(*html.Node) bool { return true }) {
		for _, a := range e.Attr {
			if a.Key == "style" || a.Key == "src" {
				t.Errorf("<%s> has a %s attribute", e.Data, a.Key)
			}
			switch a.Key {
			case "href", "src", "action", "xlink:href", "formaction":
				if !strings.HasPrefix(a.Val, "#") && !strings.HasPrefix(a.Val, "data:") {
					t.Errorf("<%s %s=%q>: not an anchor of the page", e.Data, a.Key, a.Val)
				}
			}
			if strings.HasPrefix(a.Key, "on") {
				t.Errorf("<%s> has an event handler attribute %s", e.Data, a.Key)
			}
		}
	}
	// The names are there as the browser will read them.
	var names []string
	for _, n := range browsertest.Elements(doc, "g", "class~=node") {
		v, _ := browsertest.Attr(n, "data-artifact")
		names = append(names, v)
	}
	if got, want := strings.Join(names, "|"), strings.Join([]string{xssImg, xssName, xssURL}, "|"); got != want {
		t.Errorf("graph nodes %q, want %q", got, want)
	}
}

// The page's policy allows exactly its own scripts and style, by hash, and nothing
// from anywhere: no script or style file, no font, no fetch.
func TestWriteContentSecurityPolicy(t *testing.T) {
	f := shop(t)
	page := render(t, f.mustBuild(Options{Known: map[string]bool{"ghost": true}}))
	doc, err := html.Parse(bytes.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	metas := browsertest.Elements(doc, "meta", "http-equiv=Content-Security-Policy")
	if len(metas) != 1 {
		t.Fatalf("%d CSP meta elements", len(metas))
	}
	csp, _ := browsertest.Attr(metas[0], "content")
	hash := func(s string) string {
		h := sha256.Sum256([]byte(s))
		return "'sha256-" + base64.StdEncoding.EncodeToString(h[:]) + "'"
	}
	var scripts []string
	for _, s := range browsertest.Elements(doc, "script") {
		if _, ok := browsertest.Attr(s, "src"); ok {
			t.Errorf("a script loads a file")
		}
		scripts = append(scripts, hash(browsertest.Text(s)))
	}
	styles := browsertest.Elements(doc, "style")
	if len(scripts) != 2 || len(styles) != 1 {
		t.Fatalf("%d scripts, %d styles", len(scripts), len(styles))
	}
	want := "default-src 'none'; script-src " + strings.Join(scripts, " ") + "; style-src " + hash(browsertest.Text(styles[0])) +
		"; img-src data:; base-uri 'none'; form-action 'none'"
	if csp != want {
		t.Errorf("CSP\n%s\nwant\n%s", csp, want)
	}
	if links := browsertest.Elements(doc, "link"); len(links) != 1 {
		t.Errorf("%d <link> elements, want the data: icon only", len(links))
	}
	// The only url() of the style sheet is the arrow marker, in the page itself.
	for _, m := range regexp.MustCompile(`url\([^)]*\)`).FindAllString(browsertest.Text(styles[0]), -1) {
		if m != "url(#arrow)" {
			t.Errorf("the style sheet refers to %s", m)
		}
	}
}

// The same content gives the same bytes.
func TestWriteDeterministic(t *testing.T) {
	f := shop(t)
	p := f.mustBuild(Options{Known: map[string]bool{"ghost": true}, GeneratedAtNs: 1})
	a, b := render(t, p), render(t, p)
	if !bytes.Equal(a, b) {
		t.Error("two renderings of one page differ")
	}
	q := f.mustBuild(Options{Known: map[string]bool{"ghost": true}, GeneratedAtNs: 1})
	if !bytes.Equal(a, render(t, q)) {
		t.Error("two pages of one repository differ")
	}
}

// Every status and verdict is written as a word, with its icon, wherever it is shown:
// colour is never the only signal.
func TestWriteWords(t *testing.T) {
	f := shop(t)
	f.check()
	doc, err := html.Parse(bytes.NewReader(render(t, f.mustBuild(Options{Known: map[string]bool{"ghost": true}}))))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range browsertest.Elements(doc, "g", "class~=node") {
		st, _ := browsertest.Attr(n, "data-status")
		if want := statusIcon[Status(st)] + " " + statusWord[Status(st)]; !strings.Contains(browsertest.Text(n), want) {
			t.Errorf("node %q (%s) does not say %q: %q", mustAttr(n, "data-artifact"), st, want, browsertest.Text(n))
		}
	}
	for _, a := range browsertest.Elements(doc, "article") {
		st := mustAttr(a, "data-status")
		badge := browsertest.Elements(a, "span", "class=badge")
		if len(badge) != 1 || browsertest.Text(badge[0]) != statusIcon[Status(st)]+" "+statusWord[Status(st)] {
			t.Errorf("article %s: badge %v", mustAttr(a, "data-artifact"), badge)
		}
	}
	for _, e := range browsertest.Elements(doc, "g", "class~=edge") {
		v := verdicts[verdictOf(mustAttr(e, "data-verdict"))]
		if label := browsertest.Text(browsertest.Elements(e, "text")[0]); label != v.icon+" "+v.label {
			t.Errorf("edge %s → %s: label %q, want %q", mustAttr(e, "data-source"), mustAttr(e, "data-target"), label, v.icon+" "+v.label)
		}
	}
	// The incident, the unobserved edge and the copy's mismatch, in words.
	text := browsertest.Text(doc)
	for _, w := range []string{"⚠ incident", "? unobserved", "✗ copy mismatch", "Δ source changed", "+ first snapshot", "= unchanged"} {
		if !strings.Contains(text, w) {
			t.Errorf("the page does not say %q", w)
		}
	}
}

func mustAttr(n *html.Node, key string) string {
	v, _ := browsertest.Attr(n, key)
	return v
}

func verdictOf(s string) why.Verdict { return why.Verdict(s) }

// Past maxEdgeWords edges, an edge's label is its verdict's icon alone; its tooltip
// still says the word.
func TestWriteManyEdges(t *testing.T) {
	p := &Page{RootCauses: 3}
	for i := range maxEdgeWords + 2 {
		p.Artifacts = append(p.Artifacts, &Artifact{Name: fmt.Sprintf("n%03d", i), Status: New})
		if i > 0 {
			p.Edges = append(p.Edges, Edge{Source: "n000", Target: fmt.Sprintf("n%03d", i), Relation: "copy", Verdict: why.CopyVerified})
		}
	}
	doc, err := html.Parse(bytes.NewReader(render(t, p)))
	if err != nil {
		t.Fatal(err)
	}
	edges := browsertest.Elements(doc, "g", "class~=edge")
	if len(edges) != maxEdgeWords+1 {
		t.Fatalf("%d edges", len(edges))
	}
	for _, e := range edges {
		label := browsertest.Text(browsertest.Elements(e, "text")[0])
		title := browsertest.Text(browsertest.Elements(e, "title")[0])
		if label != "✓" || title != "copy: copy verified" || len(browsertest.Elements(e, "rect")) != 0 {
			t.Fatalf("edge label %q, title %q", label, title)
		}
	}
}
