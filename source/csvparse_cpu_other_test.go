//go:build !unix

package source

// processCPUSeconds is unknown here: the CPU metrics read 0.
func processCPUSeconds() float64 { return 0 }
