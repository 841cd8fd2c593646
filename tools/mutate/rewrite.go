package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"sort"
	"strings"
)

// Mutant is one mutation: the operator at [opStart, opEnd) of file replaced by newOp.
type Mutant struct {
	ID       int     `json:"id"`
	Pos      string  `json:"pos"` // file:line:col of the operator, file relative to the module root
	Operator string  `json:"operator"`
	Original string  `json:"original"`
	Mutated  string  `json:"mutated"`
	Status   string  `json:"status"`
	Killer   string  `json:"killer,omitempty"` // the first failing test, or why not mutable
	Seconds  float64 `json:"seconds,omitempty"`

	file           *srcFile
	site           *site
	opStart, opEnd int // byte offsets of the operator in the original file
	newOp          string
}

// Statuses, as gremlins names them where it has the same one.
const (
	Killed     = "KILLED"
	TimedOut   = "TIMED OUT"
	Lived      = "LIVED"
	NotCovered = "NOT COVERED"
	NotMutable = "NOT MUTABLE"
	NotRun     = "NOT RUN" // -dry-run
	// Killed or timed out in the earlier result given to -keep, on the same file text;
	// not run again.
	Kept         = "KILLED (KEPT)"
	KeptTimedOut = "TIMED OUT (KEPT)"
)

// srcFile is one non-test file of the package.
type srcFile struct {
	path  string // absolute
	rel   string // relative to the module root
	src   []byte
	out   []byte // the rewritten text of the last build
	sites []*site
}

// site is one rewritten expression or statement: one or two mutants (a comparison site
// holds its boundary mutant at id and its negation at id+1) and the text edits that turn
// it into a call of internal/mutant.
type site struct {
	mutants          []*Mutant
	edits            []edit
	dropped          string // why it is left out (found so, or after a failed build)
	outStart, outEnd int    // its span in the rewritten file, for mapping build errors
}

// edit replaces [start, end) of the original file (an insertion where start == end).
type edit struct {
	start, end int
	text       string
	class      int // order at one offset: 0 closes a site, 1 replaces an operator, 2 opens a site
	span       int // the site's length: closings go inner first, openings outer first
	open, shut bool
	site       *site
}

var cmpHelper = map[token.Token]string{token.LSS: "Lt", token.LEQ: "Le", token.GTR: "Gt", token.GEQ: "Ge"}

// gremlins' conditionals-boundary and conditionals-negation operators.
var boundary = map[token.Token]token.Token{token.LSS: token.LEQ, token.LEQ: token.LSS, token.GTR: token.GEQ, token.GEQ: token.GTR}
var negation = map[token.Token]token.Token{token.LSS: token.GEQ, token.LEQ: token.GTR, token.GTR: token.LEQ, token.GEQ: token.LSS, token.EQL: token.NEQ, token.NEQ: token.EQL}

// gremlins' arithmetic-base operator, and the helper that switches it.
var arith = map[token.Token]token.Token{token.ADD: token.SUB, token.SUB: token.ADD, token.MUL: token.QUO, token.QUO: token.MUL, token.REM: token.MUL}
var arithHelper = map[token.Token]string{token.ADD: "Add", token.SUB: "Sub", token.MUL: "Mul", token.QUO: "Quo", token.REM: "Rem"}

// finder collects the sites of one file.
type finder struct {
	fset  *token.FileSet
	info  *types.Info
	f     *srcFile
	alias string // the import name of internal/mutant in rewritten files
	next  *int   // the next free id, shared by the package's files
}

func (fd *finder) off(p token.Pos) int { return fd.fset.Position(p).Offset }

func (fd *finder) text(n ast.Node) string {
	return string(fd.f.src[fd.off(n.Pos()):fd.off(n.End())])
}

// constant reports whether e is a constant expression (never mutated: the compiler folds it).
func (fd *finder) constant(e ast.Expr) bool {
	tv, ok := fd.info.Types[e]
	return ok && tv.Value != nil
}

// numeric reports whether e's type is numeric, or a type parameter (whose helper call
// fails to compile when it is not, and is dropped then).
func (fd *finder) numeric(e ast.Expr) bool {
	t := fd.info.TypeOf(e)
	if t == nil {
		return false
	}
	if _, ok := t.(*types.TypeParam); ok {
		return true
	}
	b, ok := t.Underlying().(*types.Basic)
	return ok && b.Info()&types.IsNumeric != 0
}

// typeArg returns "[T]" when e's type is a predeclared numeric or string type, else "" (the
// helper's type argument is inferred). Spelling it out keeps an untyped operand such as
// 1<<s in `1<<s - 1` of the type the original expression gives it.
func (fd *finder) typeArg(e ast.Expr) string {
	if b, ok := fd.info.TypeOf(e).(*types.Basic); ok && b.Info()&types.IsUntyped == 0 && b.Info()&(types.IsNumeric|types.IsString) != 0 {
		return "[" + b.Name() + "]"
	}
	return ""
}

func (fd *finder) newMutant(op string, opPos token.Pos, opLen int, newOp string, node ast.Node) *Mutant {
	p := fd.fset.Position(opPos)
	m := &Mutant{
		ID: *fd.next, Pos: fmt.Sprintf("%s:%d:%d", fd.f.rel, p.Line, p.Column), Operator: op,
		file: fd.f, opStart: p.Offset, opEnd: p.Offset + opLen, newOp: newOp,
	}
	*fd.next++
	s, e := fd.off(node.Pos()), fd.off(node.End())
	m.Original = oneLine(fd.f.src[s:e])
	m.Mutated = oneLine(append(append(append([]byte{}, fd.f.src[s:m.opStart]...), newOp...), fd.f.src[m.opEnd:e]...))
	return m
}

func oneLine(b []byte) string {
	s := strings.Join(strings.Fields(string(b)), " ")
	if len(s) > 100 {
		s = s[:97] + "..."
	}
	return s
}

// find walks the file and records its sites. simple holds the statements that must stay
// simple statements (the init and post of for, if and switch), where ++ on a map element
// cannot become an if statement.
func (fd *finder) find(file *ast.File) {
	simple := map[ast.Stmt]bool{}
	ast.Inspect(file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.GenDecl:
			return n.Tok != token.CONST
		case *ast.ForStmt:
			simple[n.Init], simple[n.Post] = true, true
		case *ast.IfStmt:
			simple[n.Init] = true
		case *ast.SwitchStmt:
			simple[n.Init] = true
		case *ast.TypeSwitchStmt:
			simple[n.Init] = true
		case *ast.BinaryExpr:
			fd.binary(n)
		case *ast.UnaryExpr:
			if n.Op == token.SUB && !fd.constant(n) && fd.numeric(n.X) {
				s := &site{}
				s.mutants = []*Mutant{fd.newMutant("INVERT_NEGATIVES", n.OpPos, 1, "", n)}
				open := fmt.Sprintf("%s.Neg(%d, ", fd.alias, s.mutants[0].ID)
				fd.add(s, n, edit{start: fd.off(n.OpPos), end: fd.off(n.X.Pos()), text: open, class: 2, open: true},
					edit{start: fd.off(n.End()), end: fd.off(n.End()), text: ")", class: 0, shut: true})
			}
		case *ast.IncDecStmt:
			fd.incDec(n, simple[n])
		}
		return true
	})
}

func (fd *finder) add(s *site, n ast.Node, edits ...edit) {
	span := fd.off(n.End()) - fd.off(n.Pos())
	for i := range edits {
		edits[i].span, edits[i].site = span, s
	}
	s.edits = edits
	fd.f.sites = append(fd.f.sites, s)
}

func (fd *finder) binary(n *ast.BinaryExpr) {
	if fd.constant(n) {
		return
	}
	start, end := fd.off(n.Pos()), fd.off(n.End())
	gap := edit{start: fd.off(n.X.End()), end: fd.off(n.Y.Pos()), text: ", ", class: 1}
	opLen := len(n.Op.String())
	s := &site{}
	switch {
	case cmpHelper[n.Op] != "":
		b := fd.newMutant("CONDITIONALS_BOUNDARY", n.OpPos, opLen, boundary[n.Op].String(), n)
		ng := fd.newMutant("CONDITIONALS_NEGATION", n.OpPos, opLen, negation[n.Op].String(), n)
		s.mutants = []*Mutant{b, ng}
		fd.add(s, n, edit{start: start, end: start, text: fmt.Sprintf("%s.%s%s(%d, ", fd.alias, cmpHelper[n.Op], fd.typeArg(n.X), b.ID), class: 2, open: true},
			gap, edit{start: end, end: end, text: ")", class: 0, shut: true})
	case n.Op == token.EQL || n.Op == token.NEQ:
		m := fd.newMutant("CONDITIONALS_NEGATION", n.OpPos, opLen, negation[n.Op].String(), n)
		s.mutants = []*Mutant{m}
		fd.add(s, n, edit{start: start, end: start, text: "((", class: 2, open: true},
			edit{start: end, end: end, text: fmt.Sprintf(") != %s.On(%d))", fd.alias, m.ID), class: 0, shut: true})
	case arithHelper[n.Op] != "" && fd.numeric(n):
		m := fd.newMutant("ARITHMETIC_BASE", n.OpPos, opLen, arith[n.Op].String(), n)
		s.mutants = []*Mutant{m}
		fd.add(s, n, edit{start: start, end: start, text: fmt.Sprintf("%s.%s%s(%d, ", fd.alias, arithHelper[n.Op], fd.typeArg(n), m.ID), class: 2, open: true},
			gap, edit{start: end, end: end, text: ")", class: 0, shut: true})
	}
}

// incDec rewrites x++ as x = mutant.Inc(id, x) for a name, mutant.IncP(id, &x) for
// another addressable operand, and, for a map element (not addressable), as an if
// statement where a statement may stand and the operand holds no other site.
func (fd *finder) incDec(n *ast.IncDecStmt, simple bool) {
	newOp, helper := token.DEC, "Inc"
	if n.Tok == token.DEC {
		newOp, helper = token.INC, "Dec"
	}
	s := &site{}
	m := fd.newMutant("INCREMENT_DECREMENT", n.TokPos, 2, newOp.String(), n)
	s.mutants = []*Mutant{m}
	start, end := fd.off(n.Pos()), fd.off(n.End())
	x := fd.text(n.X)
	whole := func(text string) {
		fd.add(s, n, edit{start: start, end: end, text: text, class: 2, open: true, shut: true})
	}
	if id, ok := n.X.(*ast.Ident); ok {
		whole(fmt.Sprintf("%s = %s.%s(%d, %s)", id.Name, fd.alias, helper, m.ID, id.Name))
		return
	}
	if ix, ok := n.X.(*ast.IndexExpr); ok {
		if _, isMap := fd.info.TypeOf(ix.X).Underlying().(*types.Map); isMap {
			if simple || fd.holdsSite(n.X) {
				s.dropped = "a map element's ++/-- in a simple statement or around another site"
				fd.f.sites = append(fd.f.sites, s)
				return
			}
			whole(fmt.Sprintf("if %s.On(%d) { %s%s } else { %s%s }", fd.alias, m.ID, x, newOp, x, n.Tok))
			return
		}
	}
	fd.add(s, n, edit{start: start, end: start, text: fmt.Sprintf("%s.%sP(%d, &", fd.alias, helper, m.ID), class: 2, open: true},
		edit{start: fd.off(n.X.End()), end: end, text: ")", class: 0, shut: true})
}

// holdsSite reports whether e contains an expression find would mutate.
func (fd *finder) holdsSite(e ast.Expr) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.BinaryExpr:
			found = found || (!fd.constant(n) && (cmpHelper[n.Op] != "" || n.Op == token.EQL || n.Op == token.NEQ || arithHelper[n.Op] != ""))
		case *ast.UnaryExpr:
			found = found || (n.Op == token.SUB && !fd.constant(n))
		}
		return !found
	})
	return found
}

// rewrite returns the file with every site that is not dropped switched by its mutant
// ids, and the import of internal/mutant; ok is false when no site is left.
func (f *srcFile) rewrite(pkgNameEnd int, alias string) (out []byte, ok bool) {
	var edits []edit
	for _, s := range f.sites {
		if s.dropped == "" {
			edits = append(edits, s.edits...)
		}
	}
	if len(edits) == 0 {
		return nil, false
	}
	// The import goes on the package clause's line, so that line numbers do not move.
	edits = append(edits, edit{start: pkgNameEnd, end: pkgNameEnd, class: 2, span: 1 << 30,
		text: fmt.Sprintf("; import %s %q", alias, runtimePkg)})
	sort.SliceStable(edits, func(i, j int) bool {
		a, b := edits[i], edits[j]
		if a.start != b.start {
			return a.start < b.start
		}
		if a.class != b.class {
			return a.class < b.class
		}
		if a.class == 0 {
			return a.span < b.span
		}
		return a.span > b.span
	})
	var buf bytes.Buffer
	cur := 0
	for _, e := range edits {
		if e.start < cur {
			panic(fmt.Sprintf("mutate: overlapping edits in %s at %d", f.rel, e.start))
		}
		buf.Write(f.src[cur:e.start])
		cur = e.start
		if e.open {
			e.site.outStart = buf.Len()
		}
		buf.WriteString(e.text)
		cur = max(cur, e.end)
		if e.shut {
			e.site.outEnd = buf.Len()
		}
	}
	buf.Write(f.src[cur:])
	return buf.Bytes(), true
}

// textual returns the file with mutant m applied as a plain source change (the way
// gremlins applies it), for the rewriter's test.
func (m *Mutant) textual() []byte {
	src := m.file.src
	return append(append(append([]byte{}, src[:m.opStart]...), m.newOp...), src[m.opEnd:]...)
}
