#!/usr/bin/env bash
# Mutation testing of the exact core with tools/mutate (mutant schemata: every mutation
# site of a package is rewritten into a run-time switch, the package's test binary is built
# once, and each mutant is a run of the tests that reach it; see tools/mutate/doc.go). A
# mutant is one small change (a boundary `>` to `>=`, a negated condition, `+` to `-`,
# `++` to `--`, a negated operand); the package's own tests run against it and either fail
# (killed) or pass (lived). A lived mutant that changes behaviour is a missing test. Not
# part of CI. Method, results and the equivalent mutants are in docs/testing.md.
#
#   scripts/mutate.sh [PKG...]    the packages, one after the other (default: the nine
#                                 packages of the exact core); subpackages are left out
#                                 (normalize does not include normalize/columnar).
#
#   MUTATE_FILES="a.go b.go"      only these files of each package (names in the package dir)
#   MUTATE_OUT=DIR                where the results go (default /tmp/pipewhy-mutate): per
#                                 package <pkg>.json (every mutant), <pkg>.log (progress,
#                                 lived and timed-out mutants) and <pkg>.lived.txt
#   MUTATE_KEEP=FILE              an earlier <pkg>.json of the same package: its killed mutants
#                                 in files whose text is unchanged are kept, not run again
#                                 (valid when tests were only added since; one package only)
#   MUTATE_WORKERS=N              mutants run in parallel (default 1)
#   MUTATE_TIMEOUT_COEFF=N        a mutant's tests time out after N times their coverage run,
#                                 plus MUTATE_MARGIN (default 3 and 5s); a timed-out mutant
#                                 counts as killed (an endless loop is a caught change)
#
# The summary line per package is killed/(killed+lived) over the covered mutants (timeouts
# among the killed); mutants no test reaches are "not covered", sites whose rewrite does not
# compile "not mutable".
set -euo pipefail
cd "$(dirname "$0")/.."
out="${MUTATE_OUT:-/tmp/pipewhy-mutate}"
mkdir -p "$out"
bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
(cd tools && go build -o "$bin/" ./mutate)

pkgs=("$@")
if [ ${#pkgs[@]} -eq 0 ]; then
	pkgs=(normalize normalize/columnar fingerprint snapshot arrays canonical repo source compare)
fi

status=0
for pkg in "${pkgs[@]}"; do
	pkg="${pkg#./}"
	pkg="${pkg%/}"
	[ -d "$pkg" ] || { echo "mutate: no package directory $pkg" >&2; exit 2; }
	name="${pkg//\//_}"
	echo "== $pkg $(date -u +%Y-%m-%dT%H:%MZ) load $(cut -d' ' -f1-3 /proc/loadavg)${MUTATE_FILES:+ files: $MUTATE_FILES}"
	"$bin/mutate" -files "${MUTATE_FILES:-}" -keep "${MUTATE_KEEP:-}" -workers "${MUTATE_WORKERS:-1}" \
		-timeout-coeff "${MUTATE_TIMEOUT_COEFF:-3}" -margin "${MUTATE_MARGIN:-5s}" \
		-o "$out/$name.json" "$pkg" 2>"$out/$name.log" || {
		status=1
		echo "mutate: $pkg: no result, see $out/$name.log" >&2
		tail -5 "$out/$name.log" >&2
		continue
	}
	grep -E '^ *[0-9]+/[0-9]+ (LIVED|TIMED OUT)|fails without a mutant' "$out/$name.log" || true
	# The lived mutants, one a line, for docs/mutation/<pkg>.txt.
	jq -r '.mutants[] | select(.status == "LIVED") | "\(.pos) \(.operator) `\(.original)` -> `\(.mutated)`"' \
		"$out/$name.json" >"$out/$name.lived.txt"
done
exit $status
