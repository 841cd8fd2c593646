// Package human formats numbers and times for people, the same way in every text the
// module shows them: the command's output, explanations (why) and the HTML report.
// It is presentation only: nothing it returns is parsed back or stored.
//
// Invariants: Commas groups the decimal digits of n by three from the right with ','
// and no other change; Time is the UTC wall time of a Unix nanosecond timestamp to the
// second, "2006-01-02 15:04:05"; Plural is "" for exactly one and "s" otherwise.
package human
