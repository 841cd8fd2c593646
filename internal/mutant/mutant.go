package mutant

import (
	"cmp"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
)

// Number is the operand type of the arithmetic helpers: the types Go's +, -, * and / take,
// strings excepted (concatenation is not mutated).
type Number interface {
	Integer | ~float32 | ~float64 | ~complex64 | ~complex128
}

// Integer is the operand type of %.
type Integer interface {
	~int | ~int8 | ~int16 | ~int32 | ~int64 | ~uint | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uintptr
}

// active is the id of the mutant this process runs (0: none, ids start at 1).
var active = envID()

// Recording state: only set when PIPEWHY_MUTANT_RECORD names a file.
var (
	recording = os.Getenv("PIPEWHY_MUTANT_RECORD") != ""
	recMu     sync.Mutex
	recSeen   map[int]bool
	recFile   *os.File
	// recBits marks the ids below 1<<16 already recorded, read without the lock: a hot
	// loop's site is recorded once and then costs one atomic load per pass.
	recBits [1 << 11]atomic.Uint32
)

func envID() int {
	n, err := strconv.Atoi(os.Getenv("PIPEWHY_MUTANT"))
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// On reports whether mutant id is the active one, and records id in the coverage mode.
func On(id int) bool {
	if recording {
		record(id)
	}
	return id == active
}

// record appends id to the record file the first time this process reaches it. The write
// goes straight to the file: a test binary may exit (os.Exit, a panic) without running
// any clean-up of ours.
func record(id int) {
	if id >= 0 && id < 1<<16 && recBits[id>>5].Load()&(1<<(id&31)) != 0 {
		return
	}
	recMu.Lock()
	defer recMu.Unlock()
	if recSeen[id] {
		return
	}
	if recSeen == nil {
		recSeen = map[int]bool{}
		f, err := os.OpenFile(os.Getenv("PIPEWHY_MUTANT_RECORD"), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
		if err != nil {
			panic("mutant: record file: " + err.Error())
		}
		recFile = f
	}
	recSeen[id] = true
	if id >= 0 && id < 1<<16 {
		recBits[id>>5].Or(1 << (id & 31))
	}
	if _, err := recFile.WriteString(strconv.Itoa(id) + "\n"); err != nil {
		panic("mutant: record file: " + err.Error())
	}
}

// Each comparison site has two ids: id is the conditionals-boundary mutant, id+1 the
// conditionals-negation mutant. The mutated operator is applied as such (not as the
// negation of the original), so NaN operands compare as the mutated source would.

// Lt is a < b; mutant id: a <= b; mutant id+1: a >= b.
func Lt[T cmp.Ordered](id int, a, b T) bool {
	switch {
	case On(id):
		return a <= b
	case On(id + 1):
		return a >= b
	}
	return a < b
}

// Le is a <= b; mutant id: a < b; mutant id+1: a > b.
func Le[T cmp.Ordered](id int, a, b T) bool {
	switch {
	case On(id):
		return a < b
	case On(id + 1):
		return a > b
	}
	return a <= b
}

// Gt is a > b; mutant id: a >= b; mutant id+1: a <= b.
func Gt[T cmp.Ordered](id int, a, b T) bool {
	switch {
	case On(id):
		return a >= b
	case On(id + 1):
		return a <= b
	}
	return a > b
}

// Ge is a >= b; mutant id: a > b; mutant id+1: a < b.
func Ge[T cmp.Ordered](id int, a, b T) bool {
	switch {
	case On(id):
		return a > b
	case On(id + 1):
		return a < b
	}
	return a >= b
}

// Equality needs no helper: `a == b` becomes `(a == b) != mutant.On(id)`, which is
// exactly `a != b` when id is active, for every comparable type.

// Add is a + b; mutant id: a - b.
func Add[T Number](id int, a, b T) T {
	if On(id) {
		return a - b
	}
	return a + b
}

// Sub is a - b; mutant id: a + b.
func Sub[T Number](id int, a, b T) T {
	if On(id) {
		return a + b
	}
	return a - b
}

// Mul is a * b; mutant id: a / b.
func Mul[T Number](id int, a, b T) T {
	if On(id) {
		return a / b
	}
	return a * b
}

// Quo is a / b; mutant id: a * b.
func Quo[T Number](id int, a, b T) T {
	if On(id) {
		return a * b
	}
	return a / b
}

// Rem is a % b; mutant id: a * b.
func Rem[T Integer](id int, a, b T) T {
	if On(id) {
		return a * b
	}
	return a % b
}

// Neg is -x; mutant id: x.
func Neg[T Number](id int, x T) T {
	if On(id) {
		return x
	}
	return -x
}

// Inc is x+1; mutant id: x-1 (the statement x++ becomes x = mutant.Inc(id, x)).
func Inc[T Number](id int, x T) T {
	if On(id) {
		return x - 1
	}
	return x + 1
}

// Dec is x-1; mutant id: x+1.
func Dec[T Number](id int, x T) T {
	if On(id) {
		return x + 1
	}
	return x - 1
}

// IncP is *p++; mutant id: *p-- (x++ on an addressable operand other than a name).
func IncP[T Number](id int, p *T) {
	*p = Inc(id, *p)
}

// DecP is *p--; mutant id: *p++.
func DecP[T Number](id int, p *T) {
	*p = Dec(id, *p)
}
