package report

import (
	"os"

	"github.com/pipewhy/pipewhy/repo"
	"github.com/pipewhy/pipewhy/snapshot"
	"github.com/pipewhy/pipewhy/why"
)

// retained returns the log positions of ps whose snapshots are still published: the scan
// log keeps the lines of scans a prune removed ('pipewhy snapshot prune'), and the
// history strip shows what can still be compared, each step against the previous
// retained scan.
func retained(r *repo.Repo, h *why.History, ps []int) []int {
	out := make([]int, 0, len(ps))
	for _, p := range ps {
		id, err := snapshot.ParseID(h.Entry(p).Snapshot)
		if err != nil {
			continue
		}
		if fi, err := os.Stat(r.Store().Path(id)); err == nil && fi.IsDir() {
			out = append(out, p)
		}
	}
	return out
}
