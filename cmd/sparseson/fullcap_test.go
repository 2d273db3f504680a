package main

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// wideVW is n examples of w distinct binary features each, none shared,
// named prefix and a number: n·w features in all.
func wideVW(prefix string, n, w int) []byte {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "%d |f", 2*(i%2)-1)
		for j := range w {
			fmt.Fprintf(&b, " %s%d", prefix, i*w+j)
		}
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// TestDenseLearnersSlotCap: full ONS and ADA-FULL run at any -b and keep
// at most 4096 slots; past them the run ends with one warning line
// (under --quiet too) counting the ignored occurrences, the saved model
// predicts, and a resumed run keeps refusing the features it did not
// keep. A run under the cap prints no warning.
func TestDenseLearnersSlotCap(t *testing.T) {
	if testing.Short() {
		t.Skip("dense runs over 4096 features")
	}
	dir := t.TempDir()
	over := write(t, filepath.Join(dir, "over.vw"), wideVW("w", 42, 100)) // 4200 features
	under := write(t, filepath.Join(dir, "under.vw"), wideVW("u", 30, 100))
	warn := regexp.MustCompile(`sparseson: warning: (full ONS|ADA-FULL) keeps the first 4096 features seen: (\d+) occurrences of (\d+) later features were ignored; use another learner, or a smaller -b to fold features together`)
	for _, c := range []struct {
		name string
		args []string
	}{
		{"full ONS", []string{"--full"}},
		{"ADA-FULL", []string{"--ada_full"}},
		{"ADA-FULL", []string{"--ada_full", "-b", "24"}},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			m := filepath.Join(dir, "m")
			_, stderr, code := sparseson(t, nil, append([]string{"--quiet", "-f", m, over}, c.args...)...)
			g := warn.FindStringSubmatch(stderr)
			if code != 0 || g == nil || g[1] != c.name {
				t.Fatalf("exit %d, no %s warning:\n%s", code, c.name, stderr)
			}
			n, _ := strconv.Atoi(g[2])
			slots, _ := strconv.Atoi(g[3])
			// 4200 features and the constant in 2^b slots, a few of which
			// collide: about 105 more than the cap, each seen once.
			if n != slots || n < 50 || n > 105 {
				t.Errorf("%d occurrences of %d features ignored, want the same number, 50..105", n, slots)
			}
			p := filepath.Join(dir, "p")
			if _, stderr, code := sparseson(t, nil, "--quiet", "-t", "-i", m, "-p", p, over); code != 0 || strings.Contains(stderr, "warning") {
				t.Errorf("predicting: exit %d\n%s", code, stderr)
			}
			if got := strings.Count(read(t, p), "\n"); got != 42 {
				t.Errorf("%d predictions, want 42", got)
			}
			// Resumed on 3000 new features: each is refused, but for the
			// few that hash onto a slot kept (about 3000·4096/2^b).
			_, stderr, code = sparseson(t, nil, "--quiet", "-i", m, under)
			g = warn.FindStringSubmatch(stderr)
			if code != 0 || g == nil {
				t.Fatalf("resumed on 3000 new features: exit %d\n%s", code, stderr)
			}
			if n, _ := strconv.Atoi(g[2]); n < 2850 || n > 3000 {
				t.Errorf("resumed on 3000 new features: %d ignored", n)
			}
			_, stderr, code = sparseson(t, nil, append([]string{"--quiet", under}, c.args...)...)
			if code != 0 || strings.Contains(stderr, "warning") {
				t.Errorf("under the cap: exit %d\n%s", code, stderr)
			}
		})
	}
}
