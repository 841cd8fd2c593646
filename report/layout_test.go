package report

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// layerOf returns the layer of each node of a layout.
func layerOf(p *placed, n int) []int {
	out := make([]int, n)
	for l, vs := range p.Layers {
		for _, v := range vs {
			out[v] = l
		}
	}
	return out
}

// crossingsOf counts the crossings of a layout's final order: each edge is the chain of
// its source, its dummies and its target (reversed for an edge that closes a cycle).
func crossingsOf(p *placed, edges [][2]int) int {
	pos := map[vertex]int{}
	for _, vs := range p.order {
		for i, v := range vs {
			pos[v] = i
		}
	}
	layer := layerOf(p, len(p.Nodes))
	per := map[int][][2]int{} // upper layer → (upper, lower) position pairs
	for j, e := range edges {
		if p.Self[j] {
			continue
		}
		a, b := e[0], e[1]
		if p.Back[j] {
			a, b = b, a
		}
		chain := []vertex{{node: a, edge: -1, l: layer[a]}}
		for l := layer[a] + 1; l < layer[b]; l++ {
			chain = append(chain, vertex{node: -1, edge: j, l: l})
		}
		chain = append(chain, vertex{node: b, edge: -1, l: layer[b]})
		for k := 1; k < len(chain); k++ {
			per[chain[k-1].l] = append(per[chain[k-1].l], [2]int{pos[chain[k-1]], pos[chain[k]]})
		}
	}
	total := 0
	for l, pairs := range per {
		total += inversions(pairs, len(p.order[l+1]))
	}
	return total
}

func TestInversions(t *testing.T) {
	for _, c := range []struct {
		pairs [][2]int
		want  int
	}{
		{nil, 0},
		{[][2]int{{0, 0}, {1, 1}}, 0},
		{[][2]int{{0, 1}, {1, 0}}, 1},
		{[][2]int{{0, 2}, {1, 1}, {2, 0}}, 3},
		{[][2]int{{0, 0}, {0, 1}, {1, 0}}, 1}, // (0,1) crosses (1,0); edges sharing an end do not cross
		{[][2]int{{0, 1}, {0, 1}, {1, 0}}, 2},
	} {
		if got := inversions(c.pairs, 3); got != c.want {
			t.Errorf("inversions(%v) = %d, want %d", c.pairs, got, c.want)
		}
	}
}

// The shop pipeline: orders(0) → orders_copy(2) → revenue(3) ← customers(1). The source
// customers sits next to orders_copy (layer 1), not at layer 0 with a long edge.
func TestLayoutLayers(t *testing.T) {
	edges := [][2]int{{0, 2}, {2, 3}, {1, 3}}
	p := layout(4, edges)
	if got := layerOf(p, 4); !reflect.DeepEqual(got, []int{0, 1, 1, 2}) {
		t.Errorf("layers %v, want [0 1 1 2]", got)
	}
	for j, e := range edges {
		a, b := p.Nodes[e[0]], p.Nodes[e[1]]
		if a.X >= b.X {
			t.Errorf("edge %v points left: %v → %v", e, a, b)
		}
		if !strings.HasPrefix(p.Paths[j], "M"+num(a.X+nodeW)+" ") {
			t.Errorf("edge %v starts at %q, not at its source's right side x=%s", e, p.Paths[j], num(a.X+nodeW))
		}
	}
	if p.Width != 2*padding+3*nodeW+2*gapX {
		t.Errorf("width %v", p.Width)
	}
}

// Two crossing edges are uncrossed by the barycenter sweeps.
func TestLayoutUncrosses(t *testing.T) {
	// a0 → b1, a1 → b0: in index order the edges cross once.
	edges := [][2]int{{0, 3}, {1, 2}}
	p := layout(4, edges)
	if got := crossingsOf(p, edges); got != 0 {
		t.Errorf("%d crossings after the sweeps, order %v", got, p.order)
	}
	// A ladder whose index order crosses every rung: a_i → b_(3-i).
	edges = [][2]int{{0, 7}, {1, 6}, {2, 5}, {3, 4}}
	p = layout(8, edges)
	if crossingsOf(&placed{order: [][]vertex{{{0, -1, 0}, {1, -1, 0}, {2, -1, 0}, {3, -1, 0}}, {{4, -1, 1}, {5, -1, 1}, {6, -1, 1}, {7, -1, 1}}},
		Layers: [][]int{{0, 1, 2, 3}, {4, 5, 6, 7}}, Nodes: make([]point, 8), Self: make([]bool, 4), Back: make([]bool, 4)}, edges) != 6 {
		t.Error("the ladder in index order does not cross 6 times: the count is wrong")
	}
	if got := crossingsOf(p, edges); got != 0 {
		t.Errorf("ladder: %d crossings, order %v", got, p.order)
	}
}

// An edge across several layers passes through a dummy in each layer between, drawn as
// a straight line across each of them; a cycle has one reversed edge; a self-edge is a
// loop; nodes of a layer do not overlap.
func TestLayoutLongEdgesCyclesLoops(t *testing.T) {
	// 0 → 1 → 2 → 3, 0 → 3 (spans layers 1 and 2), 3 → 1 (closes a cycle), 2 → 2.
	edges := [][2]int{{0, 1}, {1, 2}, {2, 3}, {0, 3}, {3, 1}, {2, 2}}
	p := layout(4, edges)
	if got := layerOf(p, 4); !reflect.DeepEqual(got, []int{0, 1, 2, 3}) {
		t.Errorf("layers %v", got)
	}
	if got := strings.Count(p.Paths[3], " L"); got != 2 {
		t.Errorf("the long edge crosses 2 layers with %d straight segments: %q", got, p.Paths[3])
	}
	if !p.Back[4] || p.Back[0] || p.Back[1] || p.Back[2] || p.Back[3] {
		t.Errorf("back edges %v, want only 3 → 1", p.Back)
	}
	// The reversed edge starts on node 3's left side and ends on its real target's
	// right side (node 1, where the arrow is drawn), within the nodes' heights.
	if !within(p.Paths[4], p.Nodes[3].X, p.Nodes[3].Y, true) || !within(p.Paths[4], p.Nodes[1].X+nodeW, p.Nodes[1].Y, false) {
		t.Errorf("the cycle's edge %q does not run from node 3's left side to node 1's right side", p.Paths[4])
	}
	if !p.Self[5] || !strings.HasPrefix(p.Paths[5], "M"+num(p.Nodes[2].X+nodeW)) {
		t.Errorf("self-edge: %v %q", p.Self[5], p.Paths[5])
	}
	dummies := 0
	for _, vs := range p.order {
		for _, v := range vs {
			if v.node < 0 {
				dummies++
			}
		}
	}
	if dummies != 3 { // 0 → 3 in layers 1 and 2; 3 → 1, reversed, in layer 2
		t.Errorf("%d dummies, want 3", dummies)
	}
	for _, vs := range p.Layers {
		for i := 1; i < len(vs); i++ {
			if p.Nodes[vs[i]].Y < p.Nodes[vs[i-1]].Y+nodeH {
				t.Errorf("nodes %d and %d overlap", vs[i-1], vs[i])
			}
		}
	}
}

// within reports whether path starts (or ends) at x, between y and y+nodeH.
func within(path string, x, y float64, start bool) bool {
	f := strings.Fields(strings.NewReplacer("M", "", "C", "", "L", "").Replace(path))
	if len(f) < 4 {
		return false
	}
	xs, ys := f[0], f[1]
	if !start {
		xs, ys = f[len(f)-2], f[len(f)-1]
	}
	var py float64
	if _, err := fmt.Sscan(ys, &py); err != nil {
		return false
	}
	return xs == num(x) && py > y && py < y+nodeH
}

// Edges into one node end at distinct points of its left side, in the order of their
// sources (top to bottom).
func TestLayoutPorts(t *testing.T) {
	edges := [][2]int{{0, 2}, {1, 2}}
	p := layout(3, edges)
	var ends []string
	for _, d := range p.Paths {
		f := strings.Fields(d)
		ends = append(ends, f[len(f)-1])
	}
	top, bottom := 0, 1
	if p.Nodes[1].Y < p.Nodes[0].Y {
		top, bottom = 1, 0
	}
	want := []string{num(p.Nodes[2].Y + float64(nodeH)/3), num(p.Nodes[2].Y + 2*float64(nodeH)/3)}
	if ends[top] != want[0] || ends[bottom] != want[1] {
		t.Errorf("ends %v, want %v (top source first)", ends, want)
	}
}

// The layout is a function of its input.
func TestLayoutDeterministic(t *testing.T) {
	var edges [][2]int
	for i := range 60 {
		edges = append(edges, [2]int{i % 20, 20 + (i*7)%40}, [2]int{20 + i%40, 60 + (i*11)%30})
	}
	a, b := layout(90, edges), layout(90, edges)
	a.order, b.order = nil, nil
	if !reflect.DeepEqual(a, b) {
		t.Error("two layouts of the same graph differ")
	}
}

// No nodes: a drawing of the padding alone.
func TestLayoutEmpty(t *testing.T) {
	p := layout(0, nil)
	if len(p.Nodes) != 0 || p.Width <= 0 || p.Height <= 0 {
		t.Errorf("empty layout %+v", p)
	}
}

// BenchmarkLayout lays out the benchmark graph of BenchmarkReport without a repository:
// 1,000 nodes in 20 layers of 50, each a transform of three nodes of the layer before
// (every tenth a copy of one).
//
//	go test ./report/ -run '^$' -bench BenchmarkLayout
func BenchmarkLayout(b *testing.B) {
	var edges [][2]int
	for l := 1; l < benchLayers; l++ {
		for i := range benchWidth {
			t := l*benchWidth + i
			if i%10 == 0 {
				edges = append(edges, [2]int{t - benchWidth, t})
				continue
			}
			for _, d := range []int{0, 7, 19} {
				edges = append(edges, [2]int{(l-1)*benchWidth + (i+d)%benchWidth, t})
			}
		}
	}
	for b.Loop() {
		layout(benchLayers*benchWidth, edges)
	}
}
