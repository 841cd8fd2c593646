// Package config reads pipewhy.yaml, the project file that names sources and the
// settings they are scanned with, so that `pipewhy scan orders` needs no flags.
//
//	version: 1
//	defaults:                 # every scan, including scans of plain addresses
//	  profile: logical-v1
//	sources:
//	  orders:                 # pipewhy scan orders
//	    address: shop.db#orders
//	    resolution: value
//	    key: [id]
//	    exclude: [note]
//	  events:
//	    address: duckdb:warehouse.duckdb
//	    query: SELECT * FROM events WHERE day >= DATE '2026-01-01'
//	    name: events
//	lineage:                  # package lineage (docs/why.md)
//	  - {from: orders, to: orders_copy, relation: copy}
//	lineage_names:            # imports: external dataset names → artifacts
//	  model.shop.orders: orders
//	policy:                   # pipewhy check thresholds (docs/contracts/incidents.md)
//	  orders: {max_row_count_change: "5%"}
//
// # Guarantees
//
//   - The file is decoded strictly: an unknown key, a duplicate key, a value of the wrong
//     kind or a second YAML document is an error naming the file and line (CodeSyntax);
//     version must be 1; every source needs an address; resolutions, profiles and names
//     are checked when the file is loaded, not when a scan is half done (CodeInvalid).
//   - Relative file paths in addresses (plain paths, csv:, jsonl:, parquet:,
//     arrow-file:, arrow-stream:, sqlite: and duckdb: addresses) and in schema are
//     relative to the directory of pipewhy.yaml, not to the working directory, so a
//     project scans the same files from any subdirectory. Server URLs are left as they
//     are; a password in them is never echoed in an error.
//   - Settings combine field by field: a command-line flag wins over the source's entry,
//     which wins over defaults, which win over the command's built-in defaults. Lists
//     (key, exclude) replace, they do not append.
//   - Lineage entries, lineage_names and policies are checked for form when the file is
//     loaded (a copy has one source and no transform, a transform has one, thresholds are
//     counts or "N%"); what they name is checked by the packages that use them.
//   - Nothing in the file is secret-aware: keep passwords out of it (PGPASSWORD,
//     ~/.pgpass and MySQL option files work as usual).
package config
