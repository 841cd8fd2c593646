// Package browsertest loads pages in a real headless browser for tests: Debian's
// chromium, started with flags that keep it off the network, with a new empty profile
// per run. Without chromium the test ends through testenv.Missing (testenv.Browser):
// skipped on a laptop, failed in CI. It also parses the DOM a page rendered
// (golang.org/x/net/html) and finds elements in it. Tests import it; nothing else may
// (internal/layering_test.go).
package browsertest

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/pipewhy/pipewhy/internal/testenv"
	"golang.org/x/net/html"
)

// Names is where Find looks for the browser, in order.
var Names = []string{"chromium", "chromium-browser"}

// timeout bounds one browser run.
const timeout = 90 * time.Second

// Browser runs a headless Chromium for one test.
type Browser struct {
	t    testing.TB
	path string
}

// Find returns the browser, or ends the test (testenv.Missing) when there is none.
func Find(t testing.TB) *Browser {
	t.Helper()
	for _, n := range Names {
		if p, err := exec.LookPath(n); err == nil {
			return &Browser{t: t, path: p}
		}
	}
	testenv.Missing(t, testenv.Browser, "none of %s in PATH (Debian: apt-get install chromium)", strings.Join(Names, ", "))
	return nil
}

// flags are the browser's flags: headless, no sandbox (CI runs as root), no GPU, and
// none of the background traffic (updates, sync, QUIC probes) that a closed network
// would make it wait for.
func (b *Browser) flags(width, height int) []string {
	return []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-extensions", "--hide-scrollbars", "--mute-audio",
		"--user-data-dir=" + b.t.TempDir(), fmt.Sprintf("--window-size=%d,%d", width, height)}
}

func (b *Browser) run(args ...string) []byte {
	b.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, b.path, args...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		b.t.Fatalf("%s: %v\n%s", b.path, err, tail(errOut.String(), 2000))
	}
	return out.Bytes()
}

// URL is the file: URL of path, with fragment appended when not empty.
func URL(t testing.TB, path, fragment string) string {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	u := "file://" + filepath.ToSlash(abs)
	if fragment != "" {
		u += "#" + fragment
	}
	return u
}

// DOM loads url in a window of the given size, runs its scripts, and returns the
// document as the browser serializes it after the load event (--dump-dom), parsed.
func (b *Browser) DOM(url string, width, height int) *html.Node {
	b.t.Helper()
	out := b.run(append(b.flags(width, height), "--dump-dom", url)...)
	doc, err := html.Parse(bytes.NewReader(out))
	if err != nil {
		b.t.Fatalf("the DOM of %s does not parse: %v", url, err)
	}
	return doc
}

// Screenshot loads url in a window of the given size and writes a PNG of it to png.
func (b *Browser) Screenshot(url, png string, width, height int) {
	b.t.Helper()
	abs, err := filepath.Abs(png)
	if err != nil {
		b.t.Fatal(err)
	}
	b.run(append(b.flags(width, height), "--screenshot="+abs, url)...)
	if st, err := os.Stat(abs); err != nil || st.Size() == 0 {
		b.t.Fatalf("no screenshot of %s in %s: %v", url, abs, err)
	}
}

// FindAll returns the elements under n (n included) for which match is true, in
// document order.
func FindAll(n *html.Node, match func(*html.Node) bool) []*html.Node {
	var out []*html.Node
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.ElementNode && match(n) {
			out = append(out, n)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return out
}

// Elements returns the elements under n with tag name tag (any, when empty) that have
// every attribute of attrs ("name=value", or "name" for any value; "class~=word" for a
// class list holding word).
func Elements(n *html.Node, tag string, attrs ...string) []*html.Node {
	return FindAll(n, func(e *html.Node) bool {
		if tag != "" && e.Data != tag {
			return false
		}
		for _, a := range attrs {
			switch name, value, eq := strings.Cut(a, "="); {
			case strings.HasSuffix(name, "~"):
				v, ok := Attr(e, strings.TrimSuffix(name, "~"))
				if !ok || !contains(strings.Fields(v), value) {
					return false
				}
			case !eq:
				if _, ok := Attr(e, name); !ok {
					return false
				}
			default:
				if v, ok := Attr(e, name); !ok || v != value {
					return false
				}
			}
		}
		return true
	})
}

func contains(words []string, w string) bool {
	for _, x := range words {
		if x == w {
			return true
		}
	}
	return false
}

// Attr returns the attribute key of element n, and whether it has one.
func Attr(n *html.Node, key string) (string, bool) {
	for _, a := range n.Attr {
		if a.Key == key {
			return a.Val, true
		}
	}
	return "", false
}

// Text returns the text under n, as the DOM's textContent does.
func Text(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

// Root returns the <html> element of doc.
func Root(t testing.TB, doc *html.Node) *html.Node {
	t.Helper()
	els := Elements(doc, "html")
	if len(els) != 1 {
		t.Fatalf("%d <html> elements", len(els))
	}
	return els[0]
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}
