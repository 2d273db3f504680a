// Package doccheck holds no code, only tests that keep the documentation
// honest: the commands README.md shows run as written, every flag of
// `sparseson --help` is documented, every relative link in README.md and
// docs/ resolves, and the documents cite papers by name. It lives in a
// package of its own so that these tests do not depend on how the command
// is laid out inside.
package doccheck
