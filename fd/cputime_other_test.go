//go:build !unix

package fd

// cpuTime is not measured here (BenchmarkNews20's cpu-ns/op reads 0).
func cpuTime() int64 { return 0 }
