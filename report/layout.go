package report

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Geometry of the lineage drawing, in SVG user units (CSS pixels at 100%).
const (
	nodeW   = 200 // a node's box
	nodeH   = 44
	gapX    = 150 // between two layers: room for the edges' verdict labels
	rowH    = 60  // a node's row within its layer
	dummyH  = 18  // the row of an edge passing through a layer
	padding = 16
)

// point is a position in the drawing.
type point struct{ X, Y float64 }

// placed is the layered layout of a directed graph: nodes left to right in layers (every
// edge points right, but for the edges that close a cycle), each node's box, and each
// edge's path through the layers it crosses.
type placed struct {
	Width, Height float64
	Nodes         []point    // top-left corner of node i's box
	Paths         []string   // SVG path data of edge j (an arrow ends where the path ends)
	Labels        []point    // where edge j's verdict label goes
	Back          []bool     // edge j closes a cycle (drawn right to left)
	Self          []bool     // edge j is a self-edge (a loop beside its node)
	Layers        [][]int    // the nodes of each layer, top to bottom (dummies left out)
	order         [][]vertex // every layer, dummies included (tests)
}

// vertex is a node of the layered graph: a real node (node >= 0), or a dummy that an edge
// spanning several layers passes through (node -1, edge the edge's index, l its layer).
type vertex struct {
	node, edge, l int
}

// layout places n nodes and the edges between them (pairs of node indexes) with a
// layered (Sugiyama-style) layout. It is deterministic: the same nodes and edges, in the
// same order, give the same drawing. Steps: a depth-first search in node order marks the
// edges that close cycles, which then count as reversed; a node's layer is the longest
// path to it from a node without inputs, and a node without inputs moves right, next to
// its nearest consumer; an edge spanning several layers gets a dummy vertex in each layer
// between; the order within layers comes from barycenter sweeps (down, then up, up to
// eight rounds), keeping the order with the fewest crossings; layers are centred
// vertically.
func layout(n int, edges [][2]int) *placed {
	p := &placed{Nodes: make([]point, n), Paths: make([]string, len(edges)), Labels: make([]point, len(edges)),
		Back: make([]bool, len(edges)), Self: make([]bool, len(edges))}
	out := make([][]int, n) // node → edge indexes, self-edges left out
	for j, e := range edges {
		if e[0] == e[1] {
			p.Self[j] = true
			continue
		}
		out[e[0]] = append(out[e[0]], j)
	}
	markBackEdges(n, edges, out, p.Back)
	from := func(j int) int {
		if p.Back[j] {
			return edges[j][1]
		}
		return edges[j][0]
	}
	to := func(j int) int {
		if p.Back[j] {
			return edges[j][0]
		}
		return edges[j][1]
	}
	// Longest-path layers, in a topological order (Kahn's, smallest index first).
	succ := make([][]int, n) // node → edge indexes, as directed for layering
	pred := make([][]int, n)
	indeg := make([]int, n)
	for j := range edges {
		if p.Self[j] {
			continue
		}
		succ[from(j)] = append(succ[from(j)], j)
		pred[to(j)] = append(pred[to(j)], j)
		indeg[to(j)]++
	}
	layer := make([]int, n)
	var topo []int
	for v := range n {
		if indeg[v] == 0 {
			topo = append(topo, v)
		}
	}
	for i := 0; i < len(topo); i++ {
		v := topo[i]
		for _, j := range succ[v] {
			w := to(j)
			layer[w] = max(layer[w], layer[v]+1)
			if indeg[w]--; indeg[w] == 0 {
				topo = append(topo, w)
			}
		}
	}
	// A node without inputs sits one layer before its nearest consumer, so that a
	// source feeding a late step does not draw a long edge across the graph.
	for i := len(topo) - 1; i >= 0; i-- {
		v := topo[i]
		if len(pred[v]) > 0 || len(succ[v]) == 0 {
			continue
		}
		m := -1
		for _, j := range succ[v] {
			if l := layer[to(j)]; m < 0 || l < m {
				m = l
			}
		}
		layer[v] = m - 1
	}
	layers := 1
	for _, l := range layer {
		layers = max(layers, l+1)
	}
	node := func(v int) vertex { return vertex{node: v, edge: -1, l: layer[v]} }
	// Vertices per layer: nodes in index order, then the dummies of long edges.
	order := make([][]vertex, layers)
	for v := range n {
		order[layer[v]] = append(order[layer[v]], node(v))
	}
	for j := range edges {
		if !p.Self[j] {
			for l := layer[from(j)] + 1; l < layer[to(j)]; l++ {
				order[l] = append(order[l], vertex{node: -1, edge: j, l: l})
			}
		}
	}
	// step returns the vertex after (down) or before (up) layer l on edge j's way.
	step := func(j, l int, down bool) vertex {
		if down {
			if l+1 == layer[to(j)] {
				return node(to(j))
			}
			return vertex{node: -1, edge: j, l: l + 1}
		}
		if l-1 == layer[from(j)] {
			return node(from(j))
		}
		return vertex{node: -1, edge: j, l: l - 1}
	}
	// neighbours returns x's neighbours in the next (down) or previous layer.
	neighbours := func(x vertex, down bool) []vertex {
		if x.node < 0 {
			return []vertex{step(x.edge, x.l, down)}
		}
		adj := pred[x.node]
		if down {
			adj = succ[x.node]
		}
		var ns []vertex
		for _, j := range adj {
			ns = append(ns, step(j, x.l, down))
		}
		return ns
	}
	pos := map[vertex]int{}
	index := func() {
		for _, vs := range order {
			for i, x := range vs {
				pos[x] = i
			}
		}
	}
	index()
	// sweep orders layer l by the mean position of each vertex's neighbours in the
	// layer before (down sweeps) or after it; a vertex without any keeps its place.
	sweep := func(l int, down bool) {
		type keyed struct {
			x    vertex
			bary float64
			at   int
		}
		ks := make([]keyed, len(order[l]))
		for i, x := range order[l] {
			k := keyed{x: x, bary: float64(i), at: i}
			if ns := neighbours(x, !down); len(ns) > 0 {
				sum := 0
				for _, m := range ns {
					sum += pos[m]
				}
				k.bary = float64(sum) / float64(len(ns))
			}
			ks[i] = k
		}
		slices.SortStableFunc(ks, func(a, b keyed) int { return cmp.Or(cmp.Compare(a.bary, b.bary), cmp.Compare(a.at, b.at)) })
		for i, k := range ks {
			order[l][i] = k.x
			pos[k.x] = i
		}
	}
	crossings := func() int {
		total := 0
		for l := 0; l+1 < layers; l++ {
			var pairs [][2]int
			for _, x := range order[l] {
				for _, m := range neighbours(x, true) {
					pairs = append(pairs, [2]int{pos[x], pos[m]})
				}
			}
			total += inversions(pairs, len(order[l+1]))
		}
		return total
	}
	best, bestCross := cloneOrder(order), crossings()
	for round := 0; round < 8 && bestCross > 0; round++ {
		for l := 1; l < layers; l++ {
			sweep(l, true)
		}
		for l := layers - 2; l >= 0; l-- {
			sweep(l, false)
		}
		if c := crossings(); c < bestCross {
			best, bestCross = cloneOrder(order), c
		}
	}
	order = best
	p.order = order
	// Coordinates: each layer a column, its vertices stacked and centred; at holds the
	// left end of each vertex's middle line.
	heights := make([]float64, layers)
	for l, vs := range order {
		for _, x := range vs {
			heights[l] += rowHeight(x)
		}
	}
	tallest := max(slices.Max(heights), rowH)
	at := map[vertex]point{}
	p.Layers = make([][]int, layers)
	for l, vs := range order {
		x := padding + float64(l)*(nodeW+gapX)
		y := padding + (tallest-heights[l])/2
		for _, v := range vs {
			h := rowHeight(v)
			at[v] = point{x, y + h/2}
			if v.node >= 0 {
				p.Nodes[v.node] = point{x, y + (rowH-nodeH)/2}
				p.Layers[l] = append(p.Layers[l], v.node)
			}
			y += h
		}
	}
	p.Width = 2*padding + float64(layers)*(nodeW+gapX) - gapX
	p.Height = 2*padding + tallest
	// Paths: from the right side of the source to the left side of the target, through
	// the dummies' rows; a cycle-closing edge runs the same way backwards, and a
	// self-edge is a loop on the right side of its node. The ends on one side of a node
	// spread over its height, in the order of where the edges come from or go to, so
	// that edges into one node do not meet in one point.
	chains := make([][]point, len(edges))
	right := make([][]int, n) // node → edges whose chain starts on its right side
	left := make([][]int, n)  // node → edges whose chain ends on its left side
	for j, e := range edges {
		if p.Self[j] {
			c := p.Nodes[e[0]]
			x, y := c.X+nodeW, c.Y+nodeH/2
			p.Paths[j] = "M" + num(x) + " " + num(y-8) + " C" + num(x+40) + " " + num(y-34) + " " + num(x+40) + " " + num(y+34) + " " + num(x) + " " + num(y+8)
			p.Labels[j] = point{x + 40, y}
			continue
		}
		a := at[node(from(j))]
		pts := []point{{a.X + nodeW, a.Y}}
		for l := layer[from(j)] + 1; l < layer[to(j)]; l++ {
			d := at[vertex{node: -1, edge: j, l: l}]
			pts = append(pts, d, point{d.X + nodeW, d.Y})
		}
		chains[j] = append(pts, at[node(to(j))])
		right[from(j)] = append(right[from(j)], j)
		left[to(j)] = append(left[to(j)], j)
	}
	spread := func(v int, js []int, end func(j int) *point, toward func(j int) point) {
		slices.SortStableFunc(js, func(a, b int) int { return cmp.Compare(toward(a).Y, toward(b).Y) })
		for k, j := range js {
			end(j).Y = p.Nodes[v].Y + nodeH*float64(k+1)/float64(len(js)+1)
		}
	}
	for v := range n {
		spread(v, right[v], func(j int) *point { return &chains[j][0] }, func(j int) point { return chains[j][1] })
		spread(v, left[v], func(j int) *point { return &chains[j][len(chains[j])-1] }, func(j int) point { return chains[j][len(chains[j])-2] })
	}
	for j, pts := range chains {
		if pts == nil {
			continue
		}
		if p.Back[j] {
			slices.Reverse(pts)
		}
		p.Paths[j] = curve(pts)
		// The label sits halfway along the last curve: in the gap before the target.
		u, w := pts[len(pts)-2], pts[len(pts)-1]
		p.Labels[j] = point{(u.X + w.X) / 2, (u.Y + w.Y) / 2}
	}
	return p
}

// markBackEdges sets back[j] for each edge j that closes a cycle, as found by a
// depth-first search from the nodes in index order along out (node → edge indexes).
func markBackEdges(n int, edges [][2]int, out [][]int, back []bool) {
	state := make([]uint8, n) // 0 unseen, 1 on the stack, 2 done
	type frame struct{ v, i int }
	for s := range n {
		if state[s] != 0 {
			continue
		}
		stack := []frame{{s, 0}}
		state[s] = 1
		for len(stack) > 0 {
			f := &stack[len(stack)-1]
			if f.i == len(out[f.v]) {
				state[f.v] = 2
				stack = stack[:len(stack)-1]
				continue
			}
			j := out[f.v][f.i]
			f.i++
			switch w := edges[j][1]; state[w] {
			case 0:
				state[w] = 1
				stack = append(stack, frame{w, 0})
			case 1:
				back[j] = true
			}
		}
	}
}

func rowHeight(v vertex) float64 {
	if v.node < 0 {
		return dummyH
	}
	return rowH
}

func cloneOrder(o [][]vertex) [][]vertex {
	c := make([][]vertex, len(o))
	for i := range o {
		c[i] = slices.Clone(o[i])
	}
	return c
}

// inversions counts the crossings of the edges between two adjacent layers, given as
// (position in the upper layer, position in the lower one) pairs: the pairs (a, b),
// (c, d) with a < c and b > d. O(e log e) with a Fenwick tree over the lower positions.
func inversions(pairs [][2]int, width int) int {
	slices.SortFunc(pairs, func(a, b [2]int) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	tree := make([]int, width+1)
	total, seen := 0, 0
	for _, pr := range pairs {
		// Pairs seen so far with a lower position greater than pr[1] cross it.
		le := 0
		for i := pr[1] + 1; i > 0; i -= i & -i {
			le += tree[i]
		}
		total += seen - le
		for i := pr[1] + 1; i <= width; i += i & -i {
			tree[i]++
		}
		seen++
	}
	return total
}

// curve is the SVG path through pts: a horizontal-tangent cubic between each pair of
// points of different columns, a straight line across a column.
func curve(pts []point) string {
	var b strings.Builder
	b.WriteString("M" + num(pts[0].X) + " " + num(pts[0].Y))
	for i := 1; i < len(pts); i++ {
		a, c := pts[i-1], pts[i]
		if a.Y == c.Y {
			b.WriteString(" L" + num(c.X) + " " + num(c.Y))
			continue
		}
		mid := (a.X + c.X) / 2
		b.WriteString(" C" + num(mid) + " " + num(a.Y) + " " + num(mid) + " " + num(c.Y) + " " + num(c.X) + " " + num(c.Y))
	}
	return b.String()
}

// num writes a coordinate with at most one decimal.
func num(f float64) string { return strconv.FormatFloat(math.Round(f*10)/10, 'f', -1, 64) }
