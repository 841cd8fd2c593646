package snapshot

import (
	"errors"

	"github.com/pipewhy/pipewhy/snapshot/vfs"
)

var errInjected = errors.New("injected fault")

// failAt returns an OS filesystem whose operations fail with errInjected when match
// says so for the operation's kind.
func failAt(match func(kind string) bool) vfs.FS {
	return vfs.Inject(vfs.Default, func(op vfs.Op) error {
		if match(string(op.Kind)) {
			return errInjected
		}
		return nil
	})
}
