package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/pipewhy/pipewhy/normalize"
	"github.com/spf13/cobra"
)

func newNormalizeCommand(s streams) *cobra.Command {
	var profileName string
	cmd := &cobra.Command{
		Use:   "normalize [FILE]",
		Short: "Encode typed values and records into C2 words (JSON lines in, JSON lines out)",
		Long: `Normalize reads JSON lines from FILE (or standard input) and writes one JSON line
per input line, in order, with the C2 (normalization contract v1) words of each value.

Each input line is a scalar or a record, values in the typed-values JSON form:

  {"id":"a","profile":"strict-v1","input":{"type":"int","value":"-42"}}
  {"id":"b","fields":[{"field_id":"2","value":{"type":"text","value":"é"}},
                      {"field_id":"1","value":{"type":"null"}}]}

and the answer is, respectively,

  {"id":"a","type_code":3,"words":["18446744073709551574"]}
  {"id":"b","words":["1","2","2","1","1","0","2","6","2","2","43459"]}

or, for a value the contract rejects, {"id":...,"error":"PW_NORM_...","message":"..."}.
Words are decimal strings (exact uint64); scalar words are the payload only, record
words the whole framed record. Messages never repeat the input's values.

"profile" is strict-v1 or logical-v1 (or a full profile identity); a line without it
uses --profile. "id" is echoed as given (null when absent). Blank lines are skipped and
other members are ignored, so fixture vectors can be piped in unchanged.

Value types: missing, null, bool, int (decimal string), float (16 hex digit bits),
text (value or utf8_hex), bytes (hex), decimal (Python syntax string), timestamp
(year..microsecond, fold, optional nanosecond, tz: null | fixed | zoneinfo).

Exit status: 0 when every line was read, even if some values were rejected;
2 when the input cannot be read or the flags are wrong.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			def, err := normalize.ParseProfile(profileName)
			if err != nil {
				return withExit(ExitError, fmt.Errorf("--profile: unknown profile %q (want strict-v1 or logical-v1)", profileName))
			}
			in := s.in
			if len(args) == 1 && args[0] != "-" {
				f, err := os.Open(args[0])
				if err != nil {
					return withExit(ExitError, err)
				}
				defer f.Close()
				in = f
			}
			if err := normalizeLines(in, s.out, def); err != nil {
				return withExit(ExitError, err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&profileName, "profile", "strict-v1", "profile for lines without a \"profile\" member: strict-v1 or logical-v1")
	return cmd
}

// normalizeLines answers every line of in on out. It fails only when in or out fails.
func normalizeLines(in io.Reader, out io.Writer, def normalize.Profile) error {
	r := bufio.NewReaderSize(in, 1<<16)
	w := bufio.NewWriter(out)
	var buf []byte
	var words []uint64
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			buf, words = normalizeLine(buf[:0], words[:0], line, def)
			if _, werr := w.Write(buf); werr != nil {
				return werr
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			_ = w.Flush() // keep the answers given so far; the read error is what we report
			return fmt.Errorf("reading input: %w", err)
		}
	}
	return w.Flush()
}

// normalizeLine appends the answer line (with its newline) for one input line to dst.
func normalizeLine(dst []byte, words []uint64, line []byte, def normalize.Profile) ([]byte, []uint64) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil || m == nil {
		return appendError(dst, nil, normalize.CodeInput, "line is not a JSON object"), words
	}
	id := m["id"]
	p := def
	if raw, ok := m["profile"]; ok {
		var name string
		if err := json.Unmarshal(raw, &name); err != nil {
			return appendError(dst, id, normalize.CodeInput, "profile is not a JSON string"), words
		}
		q, err := normalize.ParseProfile(name)
		if err != nil {
			return appendError(dst, id, normalize.CodeInput, "unknown profile"), words
		}
		p = q
	}
	input, hasInput := m["input"]
	fields, hasFields := m["fields"]
	switch {
	case hasInput && !hasFields:
		v, err := normalize.ParseValueJSON(input)
		if err != nil {
			return appendErr(dst, id, err), words
		}
		tc, out, err := normalize.AppendValue(words, v, p)
		if err != nil {
			return appendErr(dst, id, err), words
		}
		dst = appendID(dst, id)
		dst = append(dst, `,"type_code":`...)
		dst = strconv.AppendUint(dst, uint64(tc), 10)
		return appendWords(dst, out), out
	case hasFields && !hasInput:
		fs, err := normalize.ParseFieldsJSON(fields)
		if err != nil {
			return appendErr(dst, id, err), words
		}
		out, err := normalize.AppendRecord(words, fs, p)
		if err != nil {
			return appendErr(dst, id, err), words
		}
		return appendWords(appendID(dst, id), out), out
	}
	return appendError(dst, id, normalize.CodeInput, "line needs exactly one of input and fields"), words
}

func appendID(dst []byte, id json.RawMessage) []byte {
	dst = append(dst, `{"id":`...)
	if len(id) == 0 {
		return append(dst, "null"...)
	}
	var c bytes.Buffer
	if json.Compact(&c, id) != nil {
		return append(dst, "null"...)
	}
	return append(dst, c.Bytes()...)
}

func appendWords(dst []byte, words []uint64) []byte {
	dst = append(dst, `,"words":[`...)
	for i, w := range words {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		dst = strconv.AppendUint(dst, w, 10)
		dst = append(dst, '"')
	}
	return append(dst, "]}\n"...)
}

func appendErr(dst []byte, id json.RawMessage, err error) []byte {
	var e *normalize.Error
	if errors.As(err, &e) {
		return appendError(dst, id, e.Code, e.Msg)
	}
	return appendError(dst, id, normalize.CodeInput, "invalid input")
}

func appendError(dst []byte, id json.RawMessage, code normalize.Code, msg string) []byte {
	dst = appendID(dst, id)
	dst = append(dst, `,"error":`...)
	dst = strconv.AppendQuote(dst, string(code))
	dst = append(dst, `,"message":`...)
	b, _ := json.Marshal(msg)
	dst = append(dst, b...)
	return append(dst, "}\n"...)
}
