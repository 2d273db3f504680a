package hashing

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Defaults for the zero values of Config.
const (
	DefaultBits        = 18
	MaxBits            = 30
	DefaultMaxFeatures = 1 << 22
)

// ConstantHash is the hash of VW's constant (bias) feature.
const ConstantHash uint32 = 11650396

// DefaultNamespace is the namespace character of features written after a
// bare '|'; interactions, Ignore and Keep refer to it by this character.
const DefaultNamespace byte = ' '

// Wildcard in an interaction stands for every namespace of the example.
const Wildcard byte = ':'

// fnvPrime combines hashes of interacting features, as in VW.
const fnvPrime uint32 = 16777619

// Config says how features are hashed. The zero value is VW's default
// (18 bits, constant feature on, string hashing, no interactions).
type Config struct {
	// Bits is the size of the hash space in bits, 1..30; 0 means 18.
	Bits uint
	// NoConstant drops the constant feature.
	NoConstant bool
	// HashAll hashes every name with MurmurHash3, even decimal ones.
	HashAll bool
	// Interactions lists namespace interactions, each a string of namespace
	// first characters ("ab" for -q ab, "abc" for --interactions abc);
	// ':' matches every namespace present in the example.
	Interactions []string
	// Ignore drops the namespaces whose first character is listed.
	Ignore string
	// Keep, when not empty, drops every namespace not listed.
	Keep string
	// MaxFeatures bounds the features of one example, counted with the
	// constant, n-grams and interactions; 0 means DefaultMaxFeatures.
	// Larger examples are rejected as malformed.
	MaxFeatures int
	// Seed is VW's --hash_seed: namespace names are hashed with it instead
	// of 0 (and the default namespace's hash becomes MurmurHash3 of the
	// empty name), so every feature moves; the constant stays at
	// ConstantHash, as in VW.
	Seed uint32
	// Ngrams and Skips are VW's --ngram and --skips, each entry "N" for
	// every namespace or "aN" for the namespaces starting with 'a' (later
	// entries win). A namespace with ngram N ≥ 2 gets, beside its features,
	// every run of 2…N of them in input order with at most K skipped
	// features in all (K its skips), as features of value 1 (ngram.go).
	Ngrams, Skips []string
}

// DefaultConfig returns the defaults spelled out.
func DefaultConfig() Config {
	return Config{Bits: DefaultBits, MaxFeatures: DefaultMaxFeatures}
}

// Validate reports whether c is usable.
func (c Config) Validate() error {
	_, err := c.normalize()
	return err
}

// Fingerprint describes canonically everything in c that affects hashed
// output, so that two configs with equal fingerprints turn the same text
// into the same examples. Caches of parsed examples are keyed by it.
// It returns "invalid" for an invalid config.
func (c Config) Fingerprint() string {
	n, err := c.normalize()
	if err != nil {
		return "invalid"
	}
	var sb strings.Builder
	sb.WriteString("hashing/v1 bits=")
	sb.WriteString(strconv.FormatUint(uint64(n.cfg.Bits), 10))
	sb.WriteString(" constant=")
	sb.WriteString(strconv.FormatBool(!n.cfg.NoConstant))
	if n.cfg.HashAll {
		sb.WriteString(" hash=all")
	} else {
		sb.WriteString(" hash=strings")
	}
	sb.WriteString(" interactions=")
	for i, t := range n.inter {
		if i > 0 {
			sb.WriteByte(',')
		}
		sb.WriteString(strconv.Quote(string(t)))
	}
	sb.WriteString(" ignore=")
	sb.WriteString(strconv.Quote(setString(&n.ignore)))
	sb.WriteString(" keep=")
	sb.WriteString(strconv.Quote(n.cfg.Keep))
	sb.WriteString(" max=")
	sb.WriteString(strconv.Itoa(n.cfg.MaxFeatures))
	if n.cfg.Seed != 0 {
		sb.WriteString(" seed=")
		sb.WriteString(strconv.FormatUint(uint64(n.cfg.Seed), 10))
	}
	if n.grams {
		sb.WriteString(" ngram=")
		sb.WriteString(strconv.Quote(gramString(&n.ngram)))
		sb.WriteString(" skips=")
		sb.WriteString(strconv.Quote(gramString(&n.skips)))
	}
	return sb.String()
}

// normalized is a Config turned into the form the Builder works with.
type normalized struct {
	cfg      Config
	mask     uint32
	dropped  [256]bool // namespaces removed by Ignore/Keep
	ignore   [256]bool // Ignore alone, for the fingerprint
	inter    [][]byte  // deduplicated interactions
	wildcard bool      // some interaction has a ':'
	// sameLen: two interactions have the same length, so that a wildcard's
	// expansion may repeat a term of another one. Without, it cannot: the
	// expansions of one interaction are distinct, and terms of different
	// lengths differ.
	sameLen bool
	// n-grams (ngram.go): the longest gram and the skips per namespace.
	ngram, skips [256]uint8
	grams        bool // some namespace has ngram ≥ 2
}

func (c Config) normalize() (*normalized, error) {
	n := &normalized{cfg: c}
	if c.Bits == 0 {
		n.cfg.Bits = DefaultBits
	}
	if n.cfg.Bits > MaxBits {
		return nil, fmt.Errorf("hash bits %d out of range 1..%d", c.Bits, MaxBits)
	}
	n.mask = uint32(1)<<n.cfg.Bits - 1
	switch {
	case c.MaxFeatures == 0:
		n.cfg.MaxFeatures = DefaultMaxFeatures
	case c.MaxFeatures < 0:
		return nil, fmt.Errorf("max features %d is negative", c.MaxFeatures)
	}
	for i := 0; i < len(c.Ignore); i++ {
		n.ignore[c.Ignore[i]] = true
		n.dropped[c.Ignore[i]] = true
	}
	if c.Keep != "" {
		var keep [256]bool
		for i := 0; i < len(c.Keep); i++ {
			keep[c.Keep[i]] = true
		}
		for ch := range n.dropped {
			if !keep[ch] {
				n.dropped[ch] = true
			}
		}
		n.cfg.Keep = setString(&keep)
	}
	n.cfg.Ignore = setString(&n.ignore)
	if err := compileGrams(c.Ngrams, &n.ngram, "--ngram"); err != nil {
		return nil, err
	}
	if err := compileGrams(c.Skips, &n.skips, "--skips"); err != nil {
		return nil, err
	}
	if len(c.Skips) > 0 && len(c.Ngrams) == 0 {
		return nil, errors.New("--skips needs --ngram (VW: skips apply to n-grams)")
	}
	for _, g := range n.ngram {
		n.grams = n.grams || g >= 2
	}
	var keys []string
	for _, s := range c.Interactions {
		if len(s) < 2 {
			return nil, fmt.Errorf("interaction %q needs at least two namespaces", s)
		}
		if len(s) > maxTerm {
			return nil, fmt.Errorf("interaction %q has more than %d namespaces", s, maxTerm)
		}
		t := canonicalTerm([]byte(s))
		if bytesContain(t, Wildcard) {
			n.wildcard = true
		}
		k := multisetKey(t)
		if containsString(keys, k) {
			continue // VW drops interactions that only permute another one
		}
		keys = append(keys, k)
		n.inter = append(n.inter, t)
	}
	if len(n.inter) == 0 {
		n.inter = nil
	}
	for i, t := range n.inter {
		for _, u := range n.inter[:i] {
			n.sameLen = n.sameLen || len(t) == len(u)
		}
	}
	return n, nil
}

// canonicalTerm puts an interaction that names a namespace more than once
// into sorted order, as VW does, so that equal namespaces are adjacent and
// their self-interaction can be generated as combinations. Terms with
// wildcards are left alone here and canonicalized once expanded.
func canonicalTerm(t []byte) []byte {
	if bytesContain(t, Wildcard) {
		return t
	}
	var seen [256]bool
	dup := false
	for _, c := range t {
		if seen[c] {
			dup = true
		}
		seen[c] = true
	}
	if dup {
		sort.Slice(t, func(i, j int) bool { return t[i] < t[j] })
	}
	return t
}

func multisetKey(t []byte) string {
	k := []byte(string(t))
	sort.Slice(k, func(i, j int) bool { return k[i] < k[j] })
	return string(k)
}

func setString(set *[256]bool) string {
	var b []byte
	for c, ok := range set {
		if ok {
			b = append(b, byte(c))
		}
	}
	return string(b)
}

func bytesContain(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// ErrTooManyFeatures is wrapped by the error an example with more than
// MaxFeatures features (with the constant, n-grams and interactions) gets.
var ErrTooManyFeatures = errors.New("too many features on one line")
