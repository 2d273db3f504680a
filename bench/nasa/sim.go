package nasa

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// sim is §6.3.1: the regret bounds of OGD (Eq. 24), AdaGrad (Eq. 26) and
// NASA (Eq. 19) evaluated on simulated gradient sequences g_1 … g_T in
// ℝ⁵⁰⁰, T = 1000, with D = B = α = 1 and C = ⟨ḡ_{1:T}, x_{T+1}⟩ taken as 0
// (the paper gives none of them). "NASA √" is Eq. 19's leading term
// 2D√(Σ‖δ̄_t‖²) alone, to set against AdaGrad's 2D√(Σ‖g_t‖²): the rest of
// Eq. 19 is the B·(Δ_T, Γ_T) log terms, whose weight depends on B. The
// paper's μ, σ and decaying sequences are not stated; ours are below.
func sim() {
	const d, T = 500, 1000
	type scenario struct {
		name string
		draw func(rng *rand.Rand, t int, j int, u []float64) float64
	}
	normal := func(mu, sd float64) func(*rand.Rand, int, int, []float64) float64 {
		return func(rng *rand.Rand, _, _ int, _ []float64) float64 { return mu + sd*rng.NormFloat64() }
	}
	decay := func(p float64) func(*rand.Rand, int, int, []float64) float64 {
		return func(_ *rand.Rand, t, j int, u []float64) float64 { return u[j] * math.Pow(float64(t), -p) }
	}
	scenarios := []scenario{
		{"N(μ=0.1, σ=1)", normal(0.1, 1)},
		{"N(μ=0.1, σ=0.1)", normal(0.1, 0.1)},
		{"N(μ=2, σ=1)", normal(2, 1)},
		{"N(μ=2, σ=0.1)", normal(2, 0.1)},
		{"U(0, 1)", func(rng *rand.Rand, _, _ int, _ []float64) float64 { return rng.Float64() }},
		{"u_j·t^−0.1", decay(0.1)},
		{"u_j·t^−0.5", decay(0.5)},
		{"u_j·t^−1", decay(1)},
		{"u_j·t^−2", decay(2)},
	}
	checkpoints := []int{100, 250, 500, 1000}
	fmt.Printf("\n§6.3.1 regret bounds on simulated gradients (d = %d; D = B = 1, C = 0; u_j ~ U(0, 1) fixed per coordinate)\n", d)
	fmt.Printf("%-18s %-8s", "gradients", "bound")
	for _, c := range checkpoints {
		fmt.Printf(" %10s", fmt.Sprintf("T = %d", c))
	}
	fmt.Printf(" %14s\n", "NASA/AdaGrad")
	for si, sc := range scenarios {
		rng := rand.New(rand.NewPCG(uint64(si+1), 631))
		u := make([]float64, d)
		for j := range u {
			u[j] = rng.Float64()
		}
		sum := make([]float64, d)
		prevMean := make([]float64, d)
		var gradSq, gMax float64
		var delta, gamma []float64 // ‖δ̄_t‖, ‖γ_t‖
		var deltaSq float64
		bounds := map[string][]float64{}
		for t := 1; t <= T; t++ {
			g := make([]float64, d)
			var ng float64
			for j := range g {
				g[j] = sc.draw(rng, t, j, u)
				ng += g[j] * g[j]
				sum[j] += g[j]
			}
			var dn, gn float64
			for j := range g {
				mean := sum[j] / float64(t)
				dn += (g[j] - mean) * (g[j] - mean)
				gn += (mean - prevMean[j]) * (mean - prevMean[j])
				prevMean[j] = mean
			}
			gradSq += ng
			gMax = math.Max(gMax, math.Sqrt(ng))
			deltaSq += dn
			delta = append(delta, math.Sqrt(dn))
			gamma = append(gamma, math.Sqrt(gn))
			for _, c := range checkpoints {
				if c == t {
					bounds["OGD"] = append(bounds["OGD"], 2*gMax*math.Sqrt(float64(t)))
					bounds["AdaGrad"] = append(bounds["AdaGrad"], 2*math.Sqrt(gradSq))
					bounds["NASA"] = append(bounds["NASA"], 2*math.Sqrt(deltaSq)+logTerm(delta)+logTerm(gamma))
					bounds["NASA √"] = append(bounds["NASA √"], 2*math.Sqrt(deltaSq))
				}
			}
		}
		for _, name := range []string{"OGD", "AdaGrad", "NASA", "NASA √"} {
			fmt.Printf("%-18s %-8s", sc.name, name)
			for _, b := range bounds[name] {
				fmt.Printf(" %10.4g", b)
			}
			if strings.HasPrefix(name, "NASA") {
				fmt.Printf(" %14.3f", bounds[name][len(checkpoints)-1]/bounds["AdaGrad"][len(checkpoints)-1])
			}
			fmt.Println()
		}
	}
}

// logTerm is M_T·(1 + log Σ_{t=s₁}^T a_t/M_T) of Eq. 19 for a_t = ‖δ̄_t‖ or
// ‖γ_t‖, M_T = max a_t and s₁ = min{τ : Σ_{t≤τ} a_t/M_T ≥ 1}; the
// logarithm vanishes while T < s₁.
func logTerm(a []float64) float64 {
	var m float64
	for _, v := range a {
		m = math.Max(m, v)
	}
	if m == 0 {
		return 0
	}
	var run float64
	for s, v := range a {
		run += v / m
		if run >= 1 {
			var tail float64
			for _, w := range a[s:] {
				tail += w / m
			}
			return m * (1 + math.Log(tail))
		}
	}
	return m
}
