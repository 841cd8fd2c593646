// Package arrowfb checks the flatbuffer metadata of Arrow IPC files and streams, and the
// Arrow schema that arrow-go writers store in a Parquet footer, before arrow-go decodes
// them.
//
// arrow-go sizes allocations from the element counts of flatbuffer vectors before it
// checks them against the bytes that hold them: a damaged count (2^31 schema fields, or
// custom_metadata entries of a record batch) makes it call make() with that length, which
// is a fatal out-of-memory error that no recover can catch, and deep field nesting can
// exhaust the stack. Check walks the metadata first and rejects it unless every table,
// vtable, string and vector that arrow-go reads lies inside the flatbuffer that holds it,
// every message's metadata and body lie inside the input, and field nesting stays within
// Options.MaxDepth.
//
// What is walked: in a stream, every message up to the end-of-stream marker or the end of
// the input; in a file, the trailing "ARROW1" magic, the footer (schema, custom metadata,
// dictionary and record batch blocks), every block's message and the stream between the
// leading magic and the footer. Each message is checked as its header type says (Schema,
// DictionaryBatch, RecordBatch; any other header must be a table in bounds). The tables
// are read as the Arrow format defines them (format/Schema.fbs, Message.fbs, File.fbs);
// a vtable slot is read whenever its offset is below the vtable's size, as the flatbuffers
// runtime does, even when an odd size cuts the slot in half.
//
// Guarantees: Check reads at most one message's metadata (or the footer) into memory at a
// time, and never more bytes than the input holds; it never panics on any input; a
// rejection is an *Error naming the part, its byte offset and the reason, never the
// input's values. Accepting an input does not mean arrow-go will read it: Check bounds
// only what arrow-go would size allocations or recursion from, and leaves every other
// defect to the reader, which reports it as an error.
package arrowfb
