package lineage

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// DBTManifest is the part of a dbt manifest.json the import reads (ParseDBT).
type DBTManifest struct {
	Metadata struct {
		SchemaVersion string `json:"dbt_schema_version"`
		DBTVersion    string `json:"dbt_version"`
	} `json:"metadata"`
	Nodes   map[string]dbtNode `json:"nodes"`
	Sources map[string]dbtNode `json:"sources"`
}

type dbtNode struct {
	UniqueID     string `json:"unique_id"`
	ResourceType string `json:"resource_type"`
	DependsOn    struct {
		Nodes []string `json:"nodes"`
	} `json:"depends_on"`
	Checksum *struct {
		Name     string `json:"name"`
		Checksum string `json:"checksum"`
	} `json:"checksum"`
	Config struct {
		Materialized string `json:"materialized"`
		Enabled      *bool  `json:"enabled"`
	} `json:"config"`
}

var manifestSchema = regexp.MustCompile(`^https://schemas\.getdbt\.com/dbt/manifest/v[0-9]+(\.json)?$`)

// dbtDataset reports whether a node of this resource type is a dataset lineage can name.
func dbtDataset(resourceType string) bool {
	switch resourceType {
	case "model", "seed", "snapshot", "source":
		return true
	}
	return false
}

// ParseDBT reads a dbt manifest.json and checks what the import needs: a manifest schema
// version, nodes and sources keyed by their unique ids, each with a resource type and
// dependencies that name nodes or sources of the manifest. A problem is CodeImport.
func ParseDBT(data []byte) (*DBTManifest, error) {
	bad := func(msg string, err error) error {
		return &Error{Code: CodeImport, Op: "import", Msg: "dbt manifest: " + msg, Err: err}
	}
	if len(data) > MaxImportBytes {
		return nil, bad(fmt.Sprintf("larger than %d bytes", MaxImportBytes), nil)
	}
	var m DBTManifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, bad("not a dbt manifest (JSON)", err)
	}
	if !manifestSchema.MatchString(m.Metadata.SchemaVersion) {
		return nil, bad("metadata.dbt_schema_version is not a dbt manifest schema (https://schemas.getdbt.com/dbt/manifest/vN.json)", nil)
	}
	if m.Nodes == nil {
		return nil, bad("no nodes", nil)
	}
	check := func(id string, n dbtNode) error {
		if n.UniqueID != id {
			return bad(fmt.Sprintf("node %q has unique_id %q", id, n.UniqueID), nil)
		}
		if n.ResourceType == "" || strings.ContainsAny(id, "\n\r") {
			return bad(fmt.Sprintf("node %q has no resource_type or is not one line", id), nil)
		}
		for _, d := range n.DependsOn.Nodes {
			_, isNode := m.Nodes[d]
			_, isSource := m.Sources[d]
			if !isNode && !isSource {
				// dbt lists dependencies on other packages' nodes; a manifest names them all.
				return bad(fmt.Sprintf("node %q depends on %q, which the manifest does not define", id, d), nil)
			}
		}
		if dbtDataset(n.ResourceType) && n.ResourceType != "source" && n.ResourceType != "seed" && (n.Checksum == nil || n.Checksum.Name == "" || n.Checksum.Checksum == "") {
			return bad(fmt.Sprintf("%s %q has no checksum", n.ResourceType, id), nil)
		}
		return nil
	}
	for id, n := range m.Nodes {
		if err := check(id, n); err != nil {
			return nil, err
		}
	}
	for id, n := range m.Sources {
		if n.ResourceType != "source" {
			return nil, bad(fmt.Sprintf("source %q has resource_type %q", id, n.ResourceType), nil)
		}
		if err := check(id, n); err != nil {
			return nil, err
		}
	}
	return &m, nil
}

// ImportDBT turns a manifest into declarations: every model and snapshot depends on the
// models, seeds, snapshots and sources in its depends_on.nodes, a TRANSFORM whose
// transform is the literal "dbt:" + its checksum ("dbt:sha256:<hex>"), so a changed model
// file is a changed transform once the manifest is imported again. Tests, analyses and
// other resource types are not datasets and declare nothing; a disabled node neither. An
// ephemeral model is not a relation in the warehouse: it is looked through (its consumer
// depends on its dependencies) and its checksum joins the consumer's transform
// ("dbt:sha256:<consumer>;<ephemeral id>=sha256:<hex>", ascending). Nodes map to
// artifacts by unique id through names; unmapped ones are listed. The origin of each
// declaration is the dependent node ("dbt <unique id>").
func ImportDBT(m *DBTManifest, names map[string]string) *Imported {
	out := &Imported{Events: len(m.Nodes) + len(m.Sources)}
	node := func(id string) (dbtNode, bool) {
		if n, ok := m.Nodes[id]; ok {
			return n, true
		}
		n, ok := m.Sources[id]
		return n, ok
	}
	enabled := func(n dbtNode) bool { return n.Config.Enabled == nil || *n.Config.Enabled }
	ephemeral := func(n dbtNode) bool { return n.ResourceType == "model" && n.Config.Materialized == "ephemeral" }
	// inputs returns the dataset dependencies of id, looking through ephemeral models, and
	// the ephemeral models looked through.
	var inputs func(id string, seen map[string]bool, deps, ephs *[]string)
	inputs = func(id string, seen map[string]bool, deps, ephs *[]string) {
		n, _ := node(id)
		for _, d := range n.DependsOn.Nodes {
			if seen[d] {
				continue
			}
			seen[d] = true
			dn, _ := node(d)
			switch {
			case !dbtDataset(dn.ResourceType) || !enabled(dn):
			case ephemeral(dn):
				*ephs = append(*ephs, d)
				inputs(d, seen, deps, ephs)
			default:
				*deps = append(*deps, d)
			}
		}
	}
	ids := make([]string, 0, len(m.Nodes))
	for id := range m.Nodes {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	unmapped := map[string]bool{}
	for _, id := range ids {
		n := m.Nodes[id]
		if (n.ResourceType != "model" && n.ResourceType != "snapshot") || ephemeral(n) {
			continue
		}
		if !enabled(n) {
			out.Skipped = append(out.Skipped, id+": disabled")
			continue
		}
		var deps, ephs []string
		inputs(id, map[string]bool{}, &deps, &ephs)
		if len(deps) == 0 {
			continue
		}
		ident := "dbt:" + n.Checksum.Name + ":" + n.Checksum.Checksum
		slices.Sort(ephs)
		for _, e := range ephs {
			en, _ := node(e)
			ident += ";" + e + "=" + en.Checksum.Name + ":" + en.Checksum.Checksum
		}
		target, tok := names[id]
		if !tok {
			unmapped[id] = true
		}
		slices.Sort(deps)
		for _, d := range deps {
			source, sok := names[d]
			if !sok {
				unmapped[d] = true
			}
			if !sok || !tok {
				continue
			}
			out.Declarations = append(out.Declarations, Declaration{Source: source, Target: target, Relation: Transform,
				Transform: TransformRef{Kind: TransformLiteral, Ref: ident}, Origin: Origin{Kind: OriginDBT, Ref: id}})
		}
	}
	for n := range unmapped {
		out.Unmapped = append(out.Unmapped, n)
	}
	slices.Sort(out.Unmapped)
	return out
}

// CheckMapped returns CodeUnmapped naming the unmapped external names of imp (at most 20,
// then a count), unless skip; with skip it returns nil and the caller reports them.
func CheckMapped(imp *Imported, skip bool) error {
	if skip || len(imp.Unmapped) == 0 {
		return nil
	}
	list := imp.Unmapped
	more := ""
	if len(list) > 20 {
		more = fmt.Sprintf(" and %d more", len(list)-20)
		list = list[:20]
	}
	return &Error{Code: CodeUnmapped, Op: "import", Msg: fmt.Sprintf("%d dataset names map to no artifact: %s%s (map each in pipewhy.yaml lineage_names or with --map NAME=ARTIFACT; --skip-unmapped imports the edges between mapped ones)",
		len(imp.Unmapped), strings.Join(list, ", "), more)}
}
