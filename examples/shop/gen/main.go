// Command gen writes the "shop" sample data: four CSV tables in two versions
// (v1, v2), their typed schemas, the transform of daily_revenue, a pipewhy.yaml
// declaring the lineage of the small pipeline they form and a README listing exactly what changed between
// the versions. Output is deterministic: the same binary writes the same bytes
// every time.
//
//	go run ./examples/shop/gen -out examples/shop
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

const (
	numCustomers = 50
	numOrders    = 200
	firstNewID   = 201 // v2 adds orders 201..215
	lastNewID    = 215
	emailChanged = 7 // the customer whose email changes in v2
	// corruptedInCopy is the order whose status orders_copy v2 holds wrong: "paid" in
	// orders, "shipped" in the copy. Both earn revenue, so daily_revenue (computed from
	// the copy) does not show it: a silent corruption only a copy check finds.
	corruptedInCopy = 123
)

var (
	firstNames = []string{"Ada", "Ben", "Chloé", "Dmitri", "Eva", "Farid", "Grace", "Hiro", "Ines", "Jonas"}
	lastNames  = []string{"Lovelace", "Okafor", "Martin", "Ivanov", "Schmidt", "Haddad", "Hopper", "Tanaka", "García", "Berg"}
	countries  = []string{"DE", "FR", "JP", "US", "ES", "NG"}
)

type customer struct {
	id                          int
	name, email, country, since string
}

type order struct {
	id, customer int
	placed       string // naive timestamp, seconds
	day          string // YYYY-MM-DD of placed
	status       string
	cents        int64
}

func customers(version int) []customer {
	var cs []customer
	for id := 1; id <= numCustomers; id++ {
		f, l := firstNames[id%len(firstNames)], lastNames[(id*7)%len(lastNames)]
		email := fmt.Sprintf("%s.%s%d@example.com", strings.ToLower(ascii(f)), strings.ToLower(ascii(l)), id)
		if version == 2 && id == emailChanged {
			email = fmt.Sprintf("%s%d@mail.example.org", strings.ToLower(ascii(f)), id)
		}
		cs = append(cs, customer{id, f + " " + l, email, countries[id%len(countries)],
			fmt.Sprintf("2025-%02d-%02dT09:%02d:00", 1+id%12, 1+id%28, id%60)})
	}
	return cs
}

// ascii drops the accents used in the sample names, for e-mail addresses.
func ascii(s string) string {
	return strings.NewReplacer("é", "e", "í", "i").Replace(s)
}

func baseOrder(id int) order {
	day := 1 + (id-1)/10
	if id >= firstNewID {
		day = 21
	}
	minute := (id % 10) * 37
	status := "paid"
	switch id % 10 {
	case 7, 8:
		status = "shipped"
	case 9:
		status = "cancelled"
	}
	d := fmt.Sprintf("2026-11-%02d", day)
	return order{
		id: id, customer: 1 + (id*31)%numCustomers,
		placed: fmt.Sprintf("%sT%02d:%02d:00", d, 8+minute/60, minute%60), day: d,
		status: status, cents: 500 + int64(id*7919)%20000,
	}
}

// The v2 rules. README.md is written from these same predicates.
func removedInV2(id int) bool { return id <= numOrders && id%37 == 0 }
func amountChanged(id int) bool {
	return id <= numOrders && id%23 == 0 && !removedInV2(id)
}
func statusChanged(id int) bool {
	return id <= numOrders && id%29 == 0 && !removedInV2(id)
}

func orders(version int) []order {
	var os []order
	last := numOrders
	if version == 2 {
		last = lastNewID
	}
	for id := 1; id <= last; id++ {
		o := baseOrder(id)
		if version == 2 {
			if removedInV2(id) {
				continue
			}
			if amountChanged(id) {
				o.cents += 500 // +5.00
			}
			if statusChanged(id) {
				if o.status == "refunded" {
					o.status = "paid"
				} else {
					o.status = "refunded"
				}
			}
		}
		os = append(os, o)
	}
	return os
}

type dayRevenue struct {
	day    string
	orders int
	cents  int64
}

// revenue counts paid and shipped orders per day; cancelled and refunded
// orders earn nothing.
func revenue(os []order) []dayRevenue {
	m := map[string]*dayRevenue{}
	for _, o := range os {
		r := m[o.day]
		if r == nil {
			r = &dayRevenue{day: o.day}
			m[o.day] = r
		}
		if o.status == "paid" || o.status == "shipped" {
			r.orders++
			r.cents += o.cents
		}
	}
	var out []dayRevenue
	for _, r := range m {
		out = append(out, *r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].day < out[j].day })
	return out
}

func money(c int64) string { return fmt.Sprintf("%d.%02d", c/100, c%100) }

func csvField(s string) string {
	if strings.ContainsAny(s, ",\"\n\r") {
		return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

func write(path string, lines []string) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		log.Fatal(err)
	}
}

func writeVersion(out string, v int) {
	dir := filepath.Join(out, fmt.Sprintf("v%d", v))
	lines := []string{"customer_id,name,email,country,created_at"}
	for _, c := range customers(v) {
		lines = append(lines, fmt.Sprintf("%d,%s,%s,%s,%s", c.id, csvField(c.name), csvField(c.email), c.country, c.since))
	}
	write(filepath.Join(dir, "customers.csv"), lines)
	os := orders(v)
	lines = []string{"order_id,customer_id,placed_at,status,amount"}
	for _, o := range os {
		lines = append(lines, fmt.Sprintf("%d,%d,%s,%s,%s", o.id, o.customer, o.placed, o.status, money(o.cents)))
	}
	write(filepath.Join(dir, "orders.csv"), lines)
	// orders_copy: a copy of orders, exact in v1, one record corrupted in v2.
	lines = []string{"order_id,customer_id,placed_at,status,amount"}
	for _, o := range os {
		if v == 2 && o.id == corruptedInCopy {
			if o.status != "paid" {
				log.Fatalf("order %d is %s in v2: the corruption needs a paid order", o.id, o.status)
			}
			o.status = "shipped"
		}
		lines = append(lines, fmt.Sprintf("%d,%d,%s,%s,%s", o.id, o.customer, o.placed, o.status, money(o.cents)))
	}
	write(filepath.Join(dir, "orders_copy.csv"), lines)
	lines = []string{"day,orders,revenue"}
	for _, r := range revenue(os) {
		lines = append(lines, fmt.Sprintf("%s,%d,%s", r.day, r.orders, money(r.cents)))
	}
	write(filepath.Join(dir, "daily_revenue.csv"), lines)
}

func writeSchemas(out string) {
	schemas := map[string]string{
		"customers":     `{"columns":[{"name":"customer_id","type":"int64"},{"name":"name","type":"text"},{"name":"email","type":"text"},{"name":"country","type":"text"},{"name":"created_at","type":"timestamp(s)"}]}`,
		"orders":        `{"columns":[{"name":"order_id","type":"int64"},{"name":"customer_id","type":"int64"},{"name":"placed_at","type":"timestamp(s)"},{"name":"status","type":"text"},{"name":"amount","type":"decimal(10,2)"}]}`,
		"orders_copy":   `{"columns":[{"name":"order_id","type":"int64"},{"name":"customer_id","type":"int64"},{"name":"placed_at","type":"timestamp(s)"},{"name":"status","type":"text"},{"name":"amount","type":"decimal(10,2)"}]}`,
		"daily_revenue": `{"columns":[{"name":"day","type":"text"},{"name":"orders","type":"int64"},{"name":"revenue","type":"decimal(12,2)"}]}`,
	}
	for name, s := range schemas {
		write(filepath.Join(out, "schema", name+".json"), []string{s})
	}
	write(filepath.Join(out, "models", "daily_revenue.sql"), []string{
		"-- daily_revenue: paid and shipped orders of each day, from the copy of orders",
		"select substr(placed_at, 1, 10) as day, count(*) as orders, sum(amount) as revenue",
		"from orders_copy",
		"where status in ('paid', 'shipped')",
		"group by 1",
	})
	write(filepath.Join(out, "pipewhy.yaml"), []string{
		"# The lineage of the shop pipeline (pipewhy demo declares it from this file).",
		"version: 1",
		"lineage:",
		"  - {from: orders, to: orders_copy, relation: copy}",
		"  - from: [orders_copy, customers]",
		"    to: daily_revenue",
		"    relation: transform",
		"    transform: models/daily_revenue.sql",
		"    columns: {revenue: [amount, status], orders: [order_id, status]}",
	})
}

func ids(pred func(int) bool) []string {
	var out []string
	for id := 1; id <= lastNewID; id++ {
		if pred(id) {
			out = append(out, fmt.Sprint(id))
		}
	}
	return out
}

func writeReadme(out string) {
	r1, r2 := revenue(orders(1)), revenue(orders(2))
	old := map[string]dayRevenue{}
	for _, r := range r1 {
		old[r.day] = r
	}
	var changedDays, addedDays []string
	for _, r := range r2 {
		o, ok := old[r.day]
		switch {
		case !ok:
			addedDays = append(addedDays, r.day)
		case o != r:
			changedDays = append(changedDays, r.day)
		}
	}
	added := ids(func(id int) bool { return id >= firstNewID })
	removed := ids(removedInV2)
	amount := ids(amountChanged)
	status := ids(statusChanged)
	lines := []string{
		"# shop: sample data in two versions",
		"",
		"Generated by `go run ./examples/shop/gen -out examples/shop` (deterministic; do not edit by hand).",
		"Typed schemas for the CSVs are in `schema/` (the `source.LoadColumns` format).",
		"",
		"Tables (key in brackets): `customers.csv` [customer_id], `orders.csv` [order_id],",
		"`orders_copy.csv` [order_id], `daily_revenue.csv` [day]. `daily_revenue` counts and sums the",
		"`paid` and `shipped` orders of each day; `cancelled` and `refunded` orders earn nothing.",
		"",
		"They form a small pipeline, declared in `pipewhy.yaml`:",
		"`orders_copy` is a copy of `orders`, and `daily_revenue` is computed from `orders_copy` and",
		"`customers` by `models/daily_revenue.sql`.",
		"",
		"| table | v1 rows | v2 rows | added | removed | changed |",
		"|---|---|---|---|---|---|",
		fmt.Sprintf("| customers | %d | %d | 0 | 0 | 1 |", numCustomers, numCustomers),
		fmt.Sprintf("| orders | %d | %d | %d | %d | %d |", len(orders(1)), len(orders(2)), len(added), len(removed), len(amount)+len(status)),
		fmt.Sprintf("| orders_copy | %d | %d | %d | %d | %d |", len(orders(1)), len(orders(2)), len(added), len(removed), len(amount)+len(status)+1),
		fmt.Sprintf("| daily_revenue | %d | %d | %d | 0 | %d |", len(r1), len(r2), len(addedDays), len(changedDays)),
		"",
		"## What changed from v1 to v2",
		"",
		fmt.Sprintf("- customers: customer_id %d changed `email`; no other field or row changed.", emailChanged),
		fmt.Sprintf("- orders added (%d, all on 2026-11-21): order_id %s.", len(added), strings.Join(added, ", ")),
		fmt.Sprintf("- orders removed (%d, order_id divisible by 37): order_id %s.", len(removed), strings.Join(removed, ", ")),
		fmt.Sprintf("- orders with `amount` +5.00 (%d, order_id divisible by 23, not removed): order_id %s.", len(amount), strings.Join(amount, ", ")),
		fmt.Sprintf("- orders with `status` changed (%d, order_id divisible by 29, not removed; to `refunded`): order_id %s.", len(status), strings.Join(status, ", ")),
		"  No order has both its amount and its status changed.",
		fmt.Sprintf("- orders_copy: v1 equals orders v1; v2 equals orders v2 except order_id %d, whose `status` is", corruptedInCopy),
		"  `shipped` in the copy and `paid` in orders: a silently corrupted copied row. Both statuses earn",
		"  revenue, so `daily_revenue` does not show it; `pipewhy why daily_revenue` finds it.",
		fmt.Sprintf("- daily_revenue added (%d): day %s.", len(addedDays), strings.Join(addedDays, ", ")),
		fmt.Sprintf("- daily_revenue changed (%d, `orders` and/or `revenue`): day %s.", len(changedDays), strings.Join(changedDays, ", ")),
		"- Schemas are unchanged between v1 and v2.",
	}
	write(filepath.Join(out, "README.md"), lines)
}

func generate(out string) {
	for id := 1; id <= lastNewID; id++ {
		if amountChanged(id) && statusChanged(id) {
			log.Fatalf("rule overlap at order %d: the README promises none", id)
		}
	}
	writeVersion(out, 1)
	writeVersion(out, 2)
	writeSchemas(out)
	writeReadme(out)
}

func main() {
	out := flag.String("out", "examples/shop", "output directory")
	flag.Parse()
	generate(*out)
}
