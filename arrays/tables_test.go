package arrays

import "testing"

func TestPayloadBounds(t *testing.T) {
	v := &ValueTable{ValueID: []uint64{1, 2, 3}, PayloadOffset: []uint64{0, 4, 1}, PayloadLength: []uint64{3, 0, Absent},
		PayloadWords: []uint64{5, 6, 7}, ValidityBitmap: Bitmap{0b001}}
	if w, ok, err := v.Payload(0); err != nil || len(w) != 3 || !ok || cap(w) != 3 {
		t.Errorf("Payload(0) = %v, %v, %v", w, ok, err)
	}
	cases := []struct {
		i      int
		code   Code
		column string
	}{{1, CodeSliceOffset, "payload_offset"}, {2, CodeSliceLength, "payload_length"}, {3, CodeIndex, ""}, {-1, CodeIndex, ""}}
	for _, c := range cases {
		_, _, err := v.Payload(c.i)
		if e, ok := err.(*Error); !ok || e.Code != c.code || e.Column != c.column || e.Row != c.i || e.Table != "value" {
			t.Errorf("Payload(%d): %v", c.i, err)
		}
	}
	o := &ObservationTable{ObservationID: []uint64{1, 2}, FingerprintOffset: []uint64{0}, FingerprintLength: []uint64{1, 1}, FingerprintWords: []uint64{9}}
	if w, err := o.Fingerprint(0); err != nil || len(w) != 1 || w[0] != 9 {
		t.Errorf("Fingerprint(0) = %v, %v", w, err)
	}
	_, err := o.Fingerprint(1) // offset column too short: no panic
	wantCode(t, err, CodeIndex)
}
