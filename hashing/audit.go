package hashing

import "strings"

// AuditFeature is one feature of an example with its name as VW's --audit
// and --invert_hash write it: "ns^name" ("name" in the default namespace),
// "Constant", an n-gram "ns^a^b", an interaction "a^x*b^y". Slot is the
// masked slot; repeated features and collisions are listed separately
// (the example itself merges them).
type AuditFeature struct {
	Name  string
	Slot  uint32
	Value float64
}

// SetAudit turns the recording of feature names on or off. Recording
// allocates a string per feature and is meant for --audit and
// --invert_hash, not for the hot path.
func (b *Builder) SetAudit(on bool) {
	if !on {
		b.aud = nil
		return
	}
	b.aud = &auditRec{}
}

// Audit returns the features of the last example finished, with names, in
// the order the example was built (base features and n-grams, the
// constant, the interactions). It is valid until the next Begin.
func (b *Builder) Audit() []AuditFeature {
	if b.aud == nil {
		return nil
	}
	return b.aud.out
}

// auditRec keeps the names of the base features of the example being
// built, parallel to Builder.h.
type auditRec struct {
	ns      string   // the current namespace's name
	nsOf    []string // per base feature (and n-gram): namespace name
	name    []string // per base feature (and n-gram): feature name
	out     []AuditFeature
	members []string // scratch: names of an interaction's members
}

func (a *auditRec) begin() {
	a.ns = ""
	a.nsOf, a.name, a.out = a.nsOf[:0], a.name[:0], a.out[:0]
}

func (a *auditRec) namespace(name []byte) { a.ns = string(name) }

func (a *auditRec) feature(name []byte) {
	a.nsOf = append(a.nsOf, a.ns)
	a.name = append(a.name, string(name))
}

// gram names the n-gram starting at the i-th feature of the namespace with
// members at offsets mask (VW: the first member's namespace, the members'
// names joined by '^').
func (a *auditRec) gram(pos []int32, i int, mask []int) {
	var sb strings.Builder
	for k, off := range mask {
		if k > 0 {
			sb.WriteByte('^')
		}
		sb.WriteString(a.name[pos[i+off]])
	}
	a.nsOf = append(a.nsOf, a.nsOf[pos[i]])
	a.name = append(a.name, sb.String())
}

func fullName(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "^" + name
}

// finish lists the example's features with their names. The interactions
// are enumerated again here, by a plain recursion over each term's
// positions — the definition the Builder's generators implement (and the
// tests compare them with).
func (a *auditRec) finish(b *Builder) {
	mask := b.mask
	for i, h := range b.h {
		a.out = append(a.out, AuditFeature{fullName(a.nsOf[i], a.name[i]), h & mask, b.v[i]})
	}
	if !b.cfg.cfg.NoConstant {
		a.out = append(a.out, AuditFeature{"Constant", ConstantHash & mask, 1})
	}
	if !b.inter {
		return
	}
	for _, t := range b.terms {
		lists := make([][]int, len(t))
		for p, c := range t {
			for i, g := range b.g[:len(b.h)] {
				if g == c {
					lists[p] = append(lists[p], i)
				}
			}
		}
		a.interact(b, t, lists, 0, 0, 0, 1)
	}
}

func (a *auditRec) interact(b *Builder, t []byte, lists [][]int, p, from int, h uint32, v float64) {
	if p == len(t) {
		if v != 0 {
			a.out = append(a.out, AuditFeature{strings.Join(a.members, "*"), h & b.mask, v})
		}
		return
	}
	for k := from; k < len(lists[p]); k++ {
		i := lists[p][k]
		hp := b.h[i]
		if p > 0 {
			hp ^= h * fnvPrime
		}
		next := 0
		if p+1 < len(t) && t[p+1] == t[p] {
			next = k // equal namespaces: combinations, not permutations
		}
		a.members = append(a.members, fullName(a.nsOf[i], a.name[i]))
		a.interact(b, t, lists, p+1, next, hp, v*b.v[i])
		a.members = a.members[:len(a.members)-1]
	}
}
