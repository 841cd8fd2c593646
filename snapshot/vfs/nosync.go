package vfs

// NoSync wraps fsys so that File.Sync and SyncDir do nothing: for a store whose
// contents never outlive the process that writes them (compare's scratch store,
// removed when the comparison ends), where durability would cost fsyncs for nothing.
// Every other operation, and its errors, are fsys's.
func NoSync(fsys FS) FS { return noSyncFS{fsys} }

type noSyncFS struct{ FS }

func (f noSyncFS) Create(name string) (File, error) {
	fl, err := f.FS.Create(name)
	if err != nil {
		return nil, err
	}
	return noSyncFile{fl}, nil
}

func (noSyncFS) SyncDir(string) error { return nil }

type noSyncFile struct{ File }

func (noSyncFile) Sync() error { return nil }
