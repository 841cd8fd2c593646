// Package c2text renders C2 values and records as text for people: the values of
// diff and compare examples, the keys of duplicate-key errors. It reads the payload
// words of the C2 wire format (package normalize) and is display only: the text is
// not a C2 encoding, and malformed words render as "?" instead of failing.
//
// Value renders one value by its type code; Record and RecordShort render a framed
// record as name=value pairs, RecordShort on one line of a bounded width; Fields splits
// a record into its frames.
package c2text
