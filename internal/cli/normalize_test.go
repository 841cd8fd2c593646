package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

type normalizeVector struct {
	ID       string          `json:"id"`
	TypeCode *int            `json:"type_code"`
	Words    []string        `json:"words"`
	Error    string          `json:"error"`
	Raw      json.RawMessage `json:"-"`
}

type normalizeAnswer struct {
	ID       json.RawMessage `json:"id"`
	TypeCode *int            `json:"type_code"`
	Words    []string        `json:"words"`
	Error    string          `json:"error"`
	Message  string          `json:"message"`
}

func runNormalize(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := Main(append([]string{"normalize"}, args...), strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func answers(t *testing.T, out string) []normalizeAnswer {
	t.Helper()
	var as []normalizeAnswer
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var a normalizeAnswer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			t.Fatalf("output line %q: %v", sc.Text(), err)
		}
		as = append(as, a)
	}
	return as
}

// TestNormalizeFixture pipes every fixture vector, unchanged, through the command.
func TestNormalizeFixture(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "tests", "fixtures", "normalization_v1.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Vectors []json.RawMessage `json:"vectors"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var in bytes.Buffer
	var vs []normalizeVector
	for _, raw := range doc.Vectors {
		var v normalizeVector
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		vs = append(vs, v)
		if err := json.Compact(&in, raw); err != nil {
			t.Fatal(err)
		}
		in.WriteByte('\n')
	}
	code, out, stderr := runNormalize(t, in.String())
	if code != ExitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	as := answers(t, out)
	if len(as) != len(vs) {
		t.Fatalf("%d answers for %d vectors", len(as), len(vs))
	}
	for i, v := range vs {
		a := as[i]
		if string(a.ID) != `"`+v.ID+`"` {
			t.Fatalf("answer %d has id %s, want %q", i, a.ID, v.ID)
		}
		if v.Error != "" {
			if a.Error != v.Error || a.Message == "" || a.Words != nil {
				t.Errorf("%s: got %+v, want error %s", v.ID, a, v.Error)
			}
			continue
		}
		if a.Error != "" || !slices.Equal(a.Words, v.Words) {
			t.Errorf("%s: got %+v, want words %v", v.ID, a, v.Words)
		}
		if (v.TypeCode == nil) != (a.TypeCode == nil) || (v.TypeCode != nil && *v.TypeCode != *a.TypeCode) {
			t.Errorf("%s: type code %v, want %v", v.ID, a.TypeCode, v.TypeCode)
		}
	}
}

func TestNormalizeLines(t *testing.T) {
	in := strings.Join([]string{
		`{"id":1,"input":{"type":"float","bits":"8000000000000000"}}`,
		``,
		`not json`,
		`{"id":{"k": [1, 2]},"profile":"strict-v1","input":{"type":"float","bits":"8000000000000000"}}`,
		`{"id":"x","profile":"nope-v9","input":{"type":"null"}}`,
		`{"id":"both","input":{"type":"null"},"fields":[]}`,
		`{"id":"neither"}`,
		`{"input":{"type":"bool","value":true}}`,
		`{"id":"rec","fields":[]}`,
		`{"id":"crlf","input":{"type":"null"}}` + "\r",
	}, "\n")
	code, out, _ := runNormalize(t, in, "--profile", "logical-v1")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	want := []string{
		`{"id":1,"type_code":5,"words":["0"]}`, // --profile applies: -0.0 -> +0.0
		`{"id":null,"error":"PW_NORM_INPUT","message":"line is not a JSON object"}`,
		`{"id":{"k":[1,2]},"type_code":5,"words":["9223372036854775808"]}`,
		`{"id":"x","error":"PW_NORM_INPUT","message":"unknown profile"}`,
		`{"id":"both","error":"PW_NORM_INPUT","message":"line needs exactly one of input and fields"}`,
		`{"id":"neither","error":"PW_NORM_INPUT","message":"line needs exactly one of input and fields"}`,
		`{"id":null,"type_code":2,"words":["1"]}`,
		`{"id":"rec","words":["1","2","0"]}`,
		`{"id":"crlf","type_code":1,"words":[]}`,
	}
	got := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if !slices.Equal(got, want) {
		t.Fatalf("output\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestNormalizeHelpExample checks that the example in the help text is true.
func TestNormalizeHelpExample(t *testing.T) {
	code, help, _ := runNormalize(t, "", "--help")
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	in := `{"id":"a","profile":"strict-v1","input":{"type":"int","value":"-42"}}` + "\n" +
		`{"id":"b","fields":[{"field_id":"2","value":{"type":"text","value":"é"}},{"field_id":"1","value":{"type":"null"}}]}` + "\n"
	_, out, _ := runNormalize(t, in)
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		if !strings.Contains(help, line) {
			t.Errorf("help text lacks the actual answer %s", line)
		}
	}
}

func TestNormalizeMessagesHideValues(t *testing.T) {
	const secret = "S3CR3T"
	lines := []string{
		`{"id":1,"input":{"type":"int","value":"` + secret + `"}}`,
		`{"id":2,"input":{"type":"decimal","value":"` + secret + `"}}`,
		`{"id":3,"input":{"type":"` + secret + `"}}`,
		`{"id":4,"input":{"type":"timestamp","year":2021,"month":1,"day":1,"hour":0,"minute":0,"second":0,"microsecond":0,"fold":0,"tz":{"kind":"zoneinfo","key":"` + secret + `"}}}`,
		`{"id":5,"fields":[{"field_id":"` + secret + `","value":{"type":"null"}}]}`,
		`{"id":6,"input":{"type":"bytes","hex":"` + secret + `"}}`,
		`{"id":7,"profile":"` + secret + `","input":{"type":"null"}}`,
		`{"id":8,"input":{"type":"text","utf8_hex":"` + "ff" + `"}}`,
		`{"id":9,"input":{"type":"int","value":"-99999999999999999999999999"}}`,
	}
	code, out, _ := runNormalize(t, strings.Join(lines, "\n"))
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	as := answers(t, out)
	if len(as) != len(lines) {
		t.Fatalf("%d answers", len(as))
	}
	for i, a := range as {
		if a.Error == "" {
			t.Errorf("line %d: no error: %+v", i+1, a)
		}
		if strings.Contains(a.Message, secret) || strings.Contains(a.Message, "9999") {
			t.Errorf("line %d: message echoes the value: %q", i+1, a.Message)
		}
	}
}

func TestNormalizeFileArgument(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "in.jsonl")
	if err := os.WriteFile(path, []byte(`{"id":"f","input":{"type":"int","value":"7"}}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, _ := runNormalize(t, "ignored", path)
	if code != ExitOK || out != `{"id":"f","type_code":4,"words":["7"]}`+"\n" {
		t.Fatalf("exit %d, out %q", code, out)
	}
	if code, _, stderr := runNormalize(t, "", filepath.Join(dir, "absent.jsonl")); code != ExitError || stderr == "" {
		t.Fatalf("missing file: exit %d, stderr %q", code, stderr)
	}
	if code, _, _ := runNormalize(t, "", "a", "b"); code != ExitError {
		t.Fatalf("two files: exit %d", code)
	}
	if code, _, _ := runNormalize(t, "", "--profile", "fancy-v2"); code != ExitError {
		t.Fatalf("bad --profile: exit %d", code)
	}
}

type failingReader struct{ data string }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.data == "" {
		return 0, errors.New("disk on fire")
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func TestNormalizeUnreadableInput(t *testing.T) {
	var out, errb bytes.Buffer
	in := &failingReader{data: `{"id":1,"input":{"type":"null"}}` + "\n"}
	code := Main([]string{"normalize"}, in, &out, &errb)
	if code != ExitError {
		t.Fatalf("exit %d", code)
	}
	if !strings.Contains(errb.String(), "disk on fire") {
		t.Fatalf("stderr %q", errb.String())
	}
	if out.String() != `{"id":1,"type_code":1,"words":[]}`+"\n" {
		t.Fatalf("answers before the failure were lost: %q", out.String())
	}
}

// TestNormalizeSample runs the README's example file.
func TestNormalizeSample(t *testing.T) {
	path := filepath.Join("..", "..", "examples", "normalize", "sample.jsonl")
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runNormalize(t, "", path)
	if code != ExitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	as := answers(t, out)
	if n := strings.Count(string(data), "\n"); len(as) != n {
		t.Fatalf("%d answers for %d lines", len(as), n)
	}
	for _, a := range as {
		switch string(a.ID) {
		case `"too-big"`:
			if a.Error != "PW_NORM_INT_RANGE" {
				t.Errorf("too-big: %+v", a)
			}
		case `"order"`:
			// [1, 2, 2, (1, BOOL, 1, 1), (2, TEXT, 2, [1, 'b'=98])]
			want := []string{"1", "2", "2", "1", "2", "1", "1", "2", "6", "2", "1", "98"}
			if !slices.Equal(a.Words, want) {
				t.Errorf("order: %v", a.Words)
			}
		default:
			if a.Error != "" {
				t.Errorf("%s: %+v", a.ID, a)
			}
		}
	}
}
