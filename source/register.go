package source

import (
	"context"
	"strings"
	"sync"
)

// Opener opens an address of an adapter that lives in its own package (DuckDB, server
// databases), so that this package need not import their drivers.
type Opener func(ctx context.Context, address string, opts Options) (Source, error)

var (
	openersMu sync.RWMutex
	openers   = map[string]Opener{} // address prefix -> opener
)

// Register makes Open dispatch every address that starts with prefix (for example
// "duckdb:" or "postgres://") to open. Adapters call it from an init function; a binary
// reaches them by importing their package. Registering one prefix twice panics: it is a
// programming error, never an input error.
func Register(prefix string, open Opener) {
	if prefix == "" || open == nil {
		panic("source: Register needs a prefix and an opener")
	}
	openersMu.Lock()
	defer openersMu.Unlock()
	if _, dup := openers[prefix]; dup {
		panic("source: address prefix registered twice: " + prefix)
	}
	openers[prefix] = open
}

// registered returns the opener whose prefix starts address, preferring the longest.
func registered(address string) Opener {
	openersMu.RLock()
	defer openersMu.RUnlock()
	var best string
	var open Opener
	for p, o := range openers {
		if strings.HasPrefix(address, p) && len(p) > len(best) {
			best, open = p, o
		}
	}
	return open
}
