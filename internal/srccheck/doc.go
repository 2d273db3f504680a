// Package srccheck holds no code, only tests that read the module's Go
// sources for rules the compiler cannot check: that every method of a
// type holding a sparse.Table keeps its receiver reachable while it runs
// (keepalive_test.go).
package srccheck
