package son

import (
	"fmt"
	"io"

	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// NoSketch is the m = 0 sketch: A_t = αI, so SON takes the step
// u = w − g/α after projecting onto |w·x| ≤ C (Luo et al. (NIPS 2016), Fig. 1's m = 0).
type NoSketch struct{ A float64 }

func (n *NoSketch) Name() string                          { return "none" }
func (n *NoSketch) MaxRows() int                          { return 0 }
func (n *NoSketch) Rows() int                             { return 0 }
func (n *NoSketch) Alpha() float64                        { return n.A }
func (n *NoSketch) SetAlpha(a float64)                    { n.A = a }
func (n *NoSketch) Captured() float64                     { return 0 }
func (n *NoSketch) Rank() int                             { return 0 }
func (n *NoSketch) ZNorm2() float64                       { return 0 }
func (n *NoSketch) MulM(dst, z []float64)                 {}
func (n *NoSketch) MulPinv(dst, z []float64)              {}
func (n *NoSketch) MulProj(dst, z []float64)              {}
func (n *NoSketch) Update(st *sparse.Step, h sparse.Host) {}
func (n *NoSketch) Save(w *model.Writer)                  {}
func (n *NoSketch) Load(r *model.Reader) error            { return nil }
func (n *NoSketch) Report(w io.Writer, _ float64)         { fmt.Fprintln(w, "sketch = none (m = 0)") }
