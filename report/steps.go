package report

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"

	"github.com/pipewhy/pipewhy/compare"
	"github.com/pipewhy/pipewhy/repo"
)

// StepsFile is the cache of history steps, relative to the repository directory: one
// line per pair of consecutive snapshots of an artifact that a report compared,
// {"from","to","sum","step"}, sum the SHA-256 of the step's bytes. Snapshots are
// immutable, so a line never goes stale; a torn, damaged or foreign line is ignored and
// the pair compared again. Deleting the file only costs those comparisons.
const StepsFile = "cache/report-steps.jsonl"

// stepResult is what a history step records of the comparison with the step before.
type stepResult struct {
	Changed bool            `json:"changed"`
	Records *compare.Counts `json:"records"`
	Note    string          `json:"note"`
}

type stepLine struct {
	From string          `json:"from"`
	To   string          `json:"to"`
	Sum  string          `json:"sum"`
	Step json.RawMessage `json:"step"`
}

// stepCache holds the cached steps and the lines to append.
type stepCache struct {
	mu    sync.Mutex
	lines map[[2]string][]byte // (from, to) → the line, decoded on use
	add   [][]byte
}

func openSteps(r *repo.Repo) (*stepCache, error) {
	c := &stepCache{lines: map[[2]string][]byte{}}
	b, err := os.ReadFile(filepath.Join(r.Dir(), StepsFile))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	// Lines start {"from":"<32 hex>","to":"<32 hex>": the key is read now, the rest
	// when the step is needed.
	const from, to = len(`{"from":"`), len(`{"from":"`) + 32 + len(`","to":"`)
	for len(b) > 0 {
		line, rest, ok := bytes.Cut(b, []byte{'\n'})
		b = rest
		if !ok || len(line) < to+32 {
			continue // a torn last line
		}
		c.lines[[2]string{string(line[from : from+32]), string(line[to : to+32])}] = line
	}
	return c, nil
}

// get returns the cached step from → to, when a valid line has it.
func (c *stepCache) get(from, to string) (stepResult, bool) {
	c.mu.Lock()
	line, ok := c.lines[[2]string{from, to}]
	c.mu.Unlock()
	if !ok {
		return stepResult{}, false
	}
	// A line as put writes it is read from its layout (the step is its tail, one value
	// and nothing after it); any other valid line is decoded in full.
	if js, ok := stepLayout(line, from, to); ok {
		if s, ok := decodeStep(js, true); ok {
			return s, true
		}
	}
	var l stepLine
	if json.Unmarshal(line, &l) != nil || l.From != from || l.To != to || l.Sum != digest(l.Step) {
		return stepResult{}, false
	}
	return decodeStep(l.Step, false)
}

// stepLayout returns the step of line when line is {"from":from,"to":to,"sum":…,"step":…}
// exactly as put writes it, and its sum matches.
func stepLayout(line []byte, from, to string) ([]byte, bool) {
	head := `{"from":"` + from + `","to":"` + to + `","sum":"`
	rest, ok := bytes.CutPrefix(line, []byte(head))
	if !ok || len(rest) < 64+len(`","step":}`) {
		return nil, false
	}
	js, ok := bytes.CutPrefix(rest[64:], []byte(`","step":`))
	if !ok || !bytes.HasSuffix(js, []byte{'}'}) {
		return nil, false
	}
	js = js[:len(js)-1]
	return js, string(rest[:64]) == digest(js)
}

// decodeStep decodes step js strictly; whole: js must be that one value alone.
func decodeStep(js []byte, whole bool) (stepResult, bool) {
	var s stepResult
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.DisallowUnknownFields()
	if dec.Decode(&s) != nil || (whole && dec.InputOffset() != int64(len(js))) {
		return stepResult{}, false
	}
	return s, true
}

// put remembers step from → to, to be appended by save.
func (c *stepCache) put(from, to string, s stepResult) {
	js, err := json.Marshal(s)
	if err != nil {
		return // a step always encodes; nothing is cached otherwise
	}
	line, _ := json.Marshal(stepLine{From: from, To: to, Sum: digest(js), Step: js})
	c.mu.Lock()
	c.lines[[2]string{from, to}] = line
	c.add = append(c.add, line)
	c.mu.Unlock()
}

// save appends the new lines under the repository's writer lock, in one write, on a
// line of their own.
func (c *stepCache) save(r *repo.Repo) error {
	if len(c.add) == 0 {
		return nil
	}
	unlock, err := r.Lock()
	if err != nil {
		return err
	}
	defer unlock()
	p := filepath.Join(r.Dir(), StepsFile)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(p, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	var buf []byte
	// A torn last line would swallow the first new one: start on a line of its own.
	if st, err := f.Stat(); err == nil && st.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, st.Size()-1); err == nil && last[0] != '\n' {
			buf = append(buf, '\n')
		}
	}
	for _, l := range c.add {
		buf = append(append(buf, l...), '\n')
	}
	if _, err := f.Write(buf); err != nil {
		return err
	}
	c.add = nil
	return nil
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}
