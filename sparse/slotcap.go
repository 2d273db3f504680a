package sparse

import "fmt"

// SlotCap bounds the number of slots a dense learner keeps state for
// (full ONS, ADA-FULL): their state is k×k over the k slots kept, so the
// cost follows the features kept rather than 2^b, and a large -b costs
// nothing until the data fills it. A slot first met when Max slots are
// kept is refused: the learner treats it as never seen, and SlotCap
// counts its occurrences and, in a bitset over the 2^b slots allocated
// at the first refusal (2^b/8 bytes), the distinct slots.
type SlotCap struct {
	Max         int // slots kept at most
	bits        uint
	occurrences int
	slots       int
	refused     []uint64
}

// NewSlotCap returns a cap of max slots over a hash space of 2^bits.
func NewSlotCap(max int, bits uint) SlotCap { return SlotCap{Max: max, bits: bits} }

// Row returns slot's row in tab, -1 if it has none: when learning
// (create) a new slot gets a row while fewer than Max are kept, and is
// refused (counted, -1) after.
func (c *SlotCap) Row(tab *Table, slot uint32, create bool) int {
	switch {
	case !create:
		return tab.Find(slot)
	case tab.Len() < c.Max:
		return tab.Row(slot)
	}
	r := tab.Find(slot)
	if r < 0 {
		c.Refuse(slot)
	}
	return r
}

// Refuse counts one occurrence of a refused slot.
func (c *SlotCap) Refuse(slot uint32) {
	c.occurrences++
	if c.refused == nil {
		c.refused = make([]uint64, max(1, (1<<c.bits)/64))
	}
	s := slot & (1<<c.bits - 1)
	if w, b := &c.refused[s/64], uint64(1)<<(s%64); *w&b == 0 {
		*w |= b
		c.slots++
	}
}

// Ignored returns the counts so far, for a learner called name.
func (c *SlotCap) Ignored(name string) Ignored {
	return Ignored{Learner: name, Cap: c.Max, Occurrences: c.occurrences, Slots: c.slots}
}

// Ignored is what a learner with a SlotCap left out of training.
type Ignored struct {
	Learner     string
	Cap         int
	Occurrences int // occurrences of refused slots in training
	Slots       int // distinct refused slots
}

// Capped is implemented by learners that keep at most a fixed number of
// slots (and wrappers of such learners): the CLI warns at the end of a run
// where features were ignored.
type Capped interface {
	Ignored() Ignored
}

// Add sums two counts (the classes of a reduction; the distinct slots
// are then counted once per class).
func (c Ignored) Add(o Ignored) Ignored {
	if c.Learner == "" {
		c.Learner, c.Cap = o.Learner, o.Cap
	}
	c.Occurrences += o.Occurrences
	c.Slots += o.Slots
	return c
}

// Line is the plain-language summary, bits naming the hash-space setting
// (the CLI's -b).
func (c Ignored) Line(bits string) string {
	return fmt.Sprintf("%s keeps the first %d features seen: %d occurrences of %d later features were ignored; use another learner, or a smaller %s to fold features together",
		c.Learner, c.Cap, c.Occurrences, c.Slots, bits)
}
