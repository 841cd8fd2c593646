package config

import "testing"

// TestParseSize: the units are powers of 1024 (KiB...) and 1000 (KB...), spelled out
// by hand; malformed, zero, negative and overflowing sizes are refused.
func TestParseSize(t *testing.T) {
	good := map[string]int64{
		"1GiB": 1073741824, "512 MiB": 536870912, "2000000": 2000000, "3B": 3,
		"1KiB": 1024, "1KB": 1000, "2GB": 2000000000, "1TiB": 1099511627776, " 7MB ": 7000000,
	}
	for in, want := range good {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1GiB", "+5", "1.5GiB", "GiB", "1 gib", "1  GiB", "9223372036854775807KiB", "1e9"} {
		if got, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", in, got)
		}
	}
}

// TestMemoryKey: memory is read in defaults and sources, a source's own wins, and a
// malformed size is CodeInvalid naming its line.
func TestMemoryKey(t *testing.T) {
	f, err := Parse("/p/pipewhy.yaml", []byte("version: 1\ndefaults:\n  memory: 256MiB\nsources:\n  a:\n    address: a.csv\n    memory: 2GiB\n  b:\n    address: b.csv\n"))
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := f.Source("a"); a.Memory != "2GiB" {
		t.Errorf("a: memory %q", a.Memory)
	}
	if b, _ := f.Source("b"); b.Memory != "256MiB" {
		t.Errorf("b: memory %q", b.Memory)
	}
	_, err = Parse("/p/pipewhy.yaml", []byte("version: 1\nsources:\n  a:\n    address: a.csv\n    memory: lots\n"))
	if e, ok := err.(*Error); !ok || e.Code != CodeInvalid || e.Line != 3 {
		t.Fatalf("err = %v", err)
	}
}
