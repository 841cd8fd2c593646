package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pipewhy/pipewhy/internal/browsertest"
	"golang.org/x/net/html"
)

// The tests below load pages in a real headless Chromium (internal/browsertest) and read
// the DOM it rendered: the page's first script records every script error, unhandled
// rejection and CSP violation in <html data-errors>, and the status filter sets
// data-ready when it ran.

// load writes page to a file and returns its DOM, as the browser rendered it at the
// given width, with fragment appended to the address.
func load(t *testing.T, b *browsertest.Browser, page []byte, fragment string, width int) *html.Node {
	t.Helper()
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	return b.DOM(browsertest.URL(t, path, fragment), width, 900)
}

// clean checks that the page's scripts ran and recorded no error.
func clean(t *testing.T, doc *html.Node) *html.Node {
	t.Helper()
	root := browsertest.Root(t, doc)
	if e := mustAttr(root, "data-errors"); e != "" {
		t.Errorf("the page logged script errors:\n%s", e)
	}
	if r := mustAttr(root, "data-ready"); r != "1" {
		t.Errorf("the page's script did not run to its end (data-ready %q)", r)
	}
	return root
}

// The shop pipeline as the browser renders it: the graph's nodes and edges with their
// statuses and verdicts, the counts, each artifact's section and its last change.
func TestBrowserShop(t *testing.T) {
	b := browsertest.Find(t)
	f := shop(t)
	f.check()
	doc := load(t, b, render(t, f.mustBuild(Options{Known: map[string]bool{"ghost": true}})), "", 1280)
	clean(t, doc)
	var nodes []string
	for _, n := range browsertest.Elements(doc, "g", "class~=node") {
		nodes = append(nodes, mustAttr(n, "data-artifact")+":"+mustAttr(n, "data-status"))
	}
	if got, want := strings.Join(nodes, " "), "customers:new ghost:unobserved orders:unchanged orders_copy:incident revenue:changed"; got != want {
		t.Errorf("graph nodes %s, want %s", got, want)
	}
	var edges []string
	for _, e := range browsertest.Elements(doc, "g", "class~=edge") {
		if len(browsertest.Elements(e, "path")) != 1 {
			t.Errorf("edge without its path")
		}
		edges = append(edges, mustAttr(e, "data-source")+">"+mustAttr(e, "data-target")+":"+mustAttr(e, "data-verdict"))
	}
	if got, want := strings.Join(edges, " "), "ghost>revenue:unobserved orders>orders_copy:copy_mismatch orders_copy>revenue:source_changed"; got != want {
		t.Errorf("graph edges %s, want %s", got, want)
	}
	counts := map[string]string{}
	for _, c := range browsertest.Elements(doc, "b", "data-count") {
		counts[mustAttr(c, "data-count")] = browsertest.Text(c)
	}
	for st, n := range map[string]string{"incident": "1", "changed": "1", "unchanged": "1", "new": "1", "unobserved": "1"} {
		if counts[st] != n {
			t.Errorf("count of %s: %q, want %s", st, counts[st], n)
		}
	}
	articles := browsertest.Elements(doc, "article")
	if len(articles) != 5 {
		t.Fatalf("%d artifact sections", len(articles))
	}
	var copySection *html.Node
	for _, a := range articles {
		if _, hidden := browsertest.Attr(a, "hidden"); hidden {
			t.Errorf("section %s hidden without a filter", mustAttr(a, "data-artifact"))
		}
		if mustAttr(a, "data-artifact") == "orders_copy" {
			copySection = a
		}
	}
	// orders_copy: +1 added −1 removed ~2 changed, status and amount each in one record.
	got := map[string]string{}
	for _, c := range browsertest.Elements(copySection, "span", "data-count") {
		got[mustAttr(c, "data-count")] = browsertest.Text(c)
	}
	if got["added"] != "+1" || got["removed"] != "−1" || got["changed"] != "~2" || got["unchanged"] != "0" {
		t.Errorf("orders_copy counts %v", got)
	}
	var fields []string
	for _, r := range browsertest.Elements(copySection, "tr", "data-field") {
		fields = append(fields, mustAttr(r, "data-field"))
	}
	if strings.Join(fields, ",") != "amount,status" {
		t.Errorf("orders_copy fields %v", fields)
	}
	if inc := browsertest.Elements(copySection, "li", "data-incident=1"); len(inc) != 1 || !strings.Contains(browsertest.Text(inc[0]), "copy_mismatch") {
		t.Errorf("orders_copy's open incident is not shown")
	}
	// orders' history strip: three bars, then Δ3 (+1 −1 ~1) and = (unchanged).
	for _, a := range articles {
		if mustAttr(a, "data-artifact") != "orders" {
			continue
		}
		var marks []string
		for _, m := range browsertest.Elements(a, "text") {
			marks = append(marks, browsertest.Text(m))
		}
		if strings.Join(marks, " ") != "Δ3 =" {
			t.Errorf("orders' history marks %q, want Δ3 =", marks)
		}
	}
}

// #show=STATUS in the address shows the artifacts of that status only and dims the
// other nodes; an unknown status shows everything.
func TestBrowserFilter(t *testing.T) {
	b := browsertest.Find(t)
	f := shop(t)
	f.check()
	page := render(t, f.mustBuild(Options{Known: map[string]bool{"ghost": true}}))
	doc := load(t, b, page, "show=incident", 1280)
	root := clean(t, doc)
	if mustAttr(root, "data-show") != "incident" {
		t.Errorf("data-show %q", mustAttr(root, "data-show"))
	}
	for _, a := range browsertest.Elements(doc, "article") {
		_, hidden := browsertest.Attr(a, "hidden")
		if want := mustAttr(a, "data-artifact") != "orders_copy"; hidden != want {
			t.Errorf("section %s hidden %v, want %v", mustAttr(a, "data-artifact"), hidden, want)
		}
	}
	for _, n := range browsertest.Elements(doc, "g", "class~=node") {
		dim := strings.Contains(mustAttr(n, "class"), "dim")
		if want := mustAttr(n, "data-artifact") != "orders_copy"; dim != want {
			t.Errorf("node %s dimmed %v, want %v", mustAttr(n, "data-artifact"), dim, want)
		}
	}
	if _, hidden := browsertest.Attr(browsertest.Elements(doc, "nav")[0], "hidden"); hidden {
		t.Error("the filter is still hidden with scripts on")
	}
	doc = load(t, b, page, "show=nonsense", 1280)
	if root := clean(t, doc); mustAttr(root, "data-show") != "all" {
		t.Errorf("an unknown status shows %q", mustAttr(root, "data-show"))
	}
}

// The error recorder really records: a script that throws, a script the policy does not
// allow (what an escaping failure would inject) and an image from outside (blocked by
// the policy) each leave a line in data-errors, and the injected script does not run.
func TestBrowserRecordsErrors(t *testing.T) {
	b := browsertest.Find(t)
	f := shop(t)
	p := f.mustBuild(Options{Known: map[string]bool{"ghost": true}})
	doc := load(t, b, render(t, p, `throw new Error("probe 7")`), "", 1280)
	if e := mustAttr(browsertest.Root(t, doc), "data-errors"); !strings.Contains(e, "probe 7") {
		t.Errorf("a throwing script left data-errors %q", e)
	}
	injected := strings.Replace(string(render(t, p)), "<main>",
		`<main><script>document.documentElement.setAttribute("data-pwned","1")</script><img src="http://127.0.0.1:9/x.png">`, 1)
	doc = load(t, b, []byte(injected), "", 1280)
	root := browsertest.Root(t, doc)
	e := mustAttr(root, "data-errors")
	if !strings.Contains(e, "content security policy: script-src") || !strings.Contains(e, "content security policy: img-src") {
		t.Errorf("the injected script and image left data-errors %q", e)
	}
	if _, pwned := browsertest.Attr(root, "data-pwned"); pwned {
		t.Error("the injected script ran")
	}
}

// The payloads of hostile stay inert in the browser: no error, no violation, nothing
// ran, and the names read as they were given.
func TestBrowserInert(t *testing.T) {
	b := browsertest.Find(t)
	f := hostile(t)
	doc := load(t, b, render(t, f.mustBuild(Options{})), "", 1280)
	root := clean(t, doc)
	if v, pwned := browsertest.Attr(root, "data-pwned"); pwned {
		t.Errorf("a payload ran: data-pwned=%q", v)
	}
	var headings []string
	for _, h := range browsertest.Elements(doc, "h3") {
		headings = append(headings, browsertest.Text(h))
	}
	for _, name := range []string{xssName, xssImg, xssURL} {
		found := false
		for _, h := range headings {
			found = found || strings.HasSuffix(h, " "+name)
		}
		if !found {
			t.Errorf("no section is headed %q: %q", name, headings)
		}
	}
	if len(browsertest.Elements(doc, "img")) != 0 || len(browsertest.Elements(doc, "script")) != 2 {
		t.Error("the rendered DOM holds an element a payload made")
	}
}

// At a phone's width nothing but the graph's own scrolling box is wider than the
// screen. Headless Chromium opens no window narrower than 500 CSS pixels (the page's
// narrow-screen rules apply from 640), so the probe also sets the body to 390 pixels
// (a common phone) and measures what overflows it.
func TestBrowserPhoneWidth(t *testing.T) {
	b := browsertest.Find(t)
	f := hostile(t) // long unbroken names and values
	probe := `var d = document.documentElement, body = document.body;` +
		`d.setAttribute("data-overflow-window", String(d.scrollWidth - window.innerWidth));` +
		`body.style.width = "390px"; body.style.maxWidth = "390px";` +
		`d.setAttribute("data-overflow-390", String(body.scrollWidth - body.clientWidth));`
	doc := load(t, b, render(t, f.mustBuild(Options{}), probe), "", 390)
	root := clean(t, doc)
	for _, a := range []string{"data-overflow-window", "data-overflow-390"} {
		if o := mustAttr(root, a); o != "0" {
			t.Errorf("%s: the page is %q pixels wider than the screen", a, o)
		}
	}
}
