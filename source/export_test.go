package source

// The helpers of this package's tests that its external tests (package source_test) use.
var (
	WriteFile       = writeFile
	WriteParquet    = writeParquet
	WriteIPC        = writeIPC
	WriteSQLiteConf = writeSQLiteConf
	ConfColumns     = confColumns
)
