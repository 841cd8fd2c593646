#!/usr/bin/env bash
# Mutation testing of the exact core with gremlins (github.com/go-gremlins/gremlins, pinned in
# tools/go.mod). Each mutant is one small source change (a boundary `>` to `>=`, a negated
# condition, `+` to `-`, `++` to `--`, a negated operand); the package's own tests run
# against it and either fail (killed) or pass (lived). A lived mutant that changes
# behaviour is a missing test. Not part of CI: every mutant is one `go test` build, so a
# package takes minutes to hours. Results and the equivalent mutants are in docs/testing.md.
#
#   scripts/mutate.sh [PKG...]    the packages, one after the other (default: the nine
#                                 packages of the exact core); subpackages are left out
#                                 (normalize does not include normalize/columnar).
#
#   MUTATE_FILES="a.go b.go"      only these files of each package (names in the package dir)
#   MUTATE_OUT=DIR                where the JSON results and logs go (default
#                                 /tmp/pipewhy-mutate); one <pkg>.json and <pkg>.log each
#   MUTATE_WORKERS=N              mutants run in parallel (default 1)
#   MUTATE_TIMEOUT_COEFF=N        a mutant's tests time out after N times the length of the
#                                 coverage run (default 3); a timed-out mutant counts as
#                                 killed (an endless loop is a caught change)
#
# The summary line per package is killed/(killed+lived+timed out) over the covered mutants;
# mutants no test reaches are reported apart ("not covered").
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
out="${MUTATE_OUT:-/tmp/pipewhy-mutate}"
mkdir -p "$out"
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
(cd tools && go build -o "$bin/" github.com/go-gremlins/gremlins/cmd/gremlins)

pkgs=("$@")
if [ ${#pkgs[@]} -eq 0 ]; then
	pkgs=(normalize normalize/columnar fingerprint snapshot arrays canonical repo source compare)
fi

for pkg in "${pkgs[@]}"; do
	pkg="${pkg#./}"
	pkg="${pkg%/}"
	[ -d "$pkg" ] || { echo "mutate: no package directory $pkg" >&2; exit 2; }
	# Paths gremlins matches are relative to the package directory: a slash means a
	# subpackage, which has its own run.
	excl=(-E '/')
	if [ -n "${MUTATE_FILES:-}" ]; then
		for f in "$pkg"/*.go; do
			f="$(basename "$f")"
			case " $MUTATE_FILES " in
			*" $f "*) ;;
			*) excl+=(-E "^${f//./\\.}\$") ;;
			esac
		done
	fi
	name="${pkg//\//_}"
	echo "== $pkg $(date -u +%Y-%m-%dT%H:%MZ)${MUTATE_FILES:+ files: $MUTATE_FILES}"
	# -count=1: a cached coverage run would take a second and make every timeout spurious.
	(cd "$root" && GOFLAGS="${GOFLAGS:+$GOFLAGS }-count=1" "$bin/gremlins" unleash \
		--workers "${MUTATE_WORKERS:-1}" \
		--timeout-coefficient "${MUTATE_TIMEOUT_COEFF:-3}" \
		-o "$out/$name.json" "${excl[@]}" "./$pkg") >"$out/$name.log" 2>&1 || true
	grep -E '^ *(LIVED|TIMED OUT)' "$out/$name.log" || true
	jq -r --arg pkg "$pkg" '
		[.files[].mutations[]] as $m
		| ($m | map(select(.status == "KILLED")) | length) as $k
		| ($m | map(select(.status == "LIVED")) | length) as $l
		| ($m | map(select(.status == "TIMED OUT")) | length) as $t
		| ($m | map(select(.status == "NOT COVERED")) | length) as $n
		| "\($pkg): killed \($k + $t)/\($k + $l + $t) (\($t) by timeout), lived \($l), not covered \($n)"
	' "$out/$name.json" 2>/dev/null || { echo "mutate: $pkg: no result, see $out/$name.log" >&2; tail -5 "$out/$name.log" >&2; }
done
