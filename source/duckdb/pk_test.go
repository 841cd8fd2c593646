//go:build cgo

package duckdb

import (
	"context"
	"slices"
	"testing"

	"github.com/pipewhy/pipewhy/source"
)

// TestPrimaryKey: a table's PRIMARY KEY columns in key order (the declared order, not
// the column order), whatever the column names; nil for a table without one (even when
// a table of the same name in another schema has one), a view and a query.
func TestPrimaryKey(t *testing.T) {
	db := tempDB(t,
		`CREATE TABLE composite(a VARCHAR, b INTEGER, c DOUBLE, PRIMARY KEY (b, a))`,
		`CREATE TABLE single("it's" VARCHAR PRIMARY KEY, n INTEGER)`,
		`CREATE TABLE plain(x INTEGER, y VARCHAR)`,
		`CREATE SCHEMA other`,
		`CREATE TABLE other.plain(x INTEGER PRIMARY KEY, y VARCHAR)`,
		`CREATE VIEW v AS SELECT * FROM single`,
	)
	for _, c := range []struct {
		opts Options
		want []string
	}{
		{Options{Path: db, Table: "composite"}, []string{"b", "a"}},
		{Options{Path: db, Table: "composite", Exclude: []string{"c"}}, []string{"b", "a"}},
		{Options{Path: db, Table: "single"}, []string{"it's"}},
		{Options{Path: db, Table: "plain"}, nil},
		{Options{Path: db, Table: "v"}, nil},
		{Options{Path: db, Query: "SELECT * FROM single"}, nil},
	} {
		src, err := Open(context.Background(), c.opts)
		if err != nil {
			t.Fatalf("%+v: %v", c.opts, err)
		}
		if got := source.PrimaryKey(src); !slices.Equal(got, c.want) {
			t.Errorf("%s %q: primary key %q, want %q", c.opts.Table, c.opts.Query, got, c.want)
		}
		src.Close()
	}
}
