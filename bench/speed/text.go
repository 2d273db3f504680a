package speed

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/sparseson/sparseson/bench/internal/run"
	"github.com/sparseson/sparseson/bench/synthetic"
)

// synthKappa is the condition number of the synthetic sets the speed
// suite times: the middle of Luo et al. (NIPS 2016), §5.1's range (the cost of a step
// does not depend on κ, only on d = 100 and m).
const synthKappa = "100"

// textLearners adds the main learners at m = 10, each reading in as text:
// AdaGrad, the four SON sketches and ADA-FD (the FD-adaptive learner, at
// its default τ = 10, the sketches' m). predictLearners adds the test-only
// rows.
func textLearners(add func(name, bits string, flags ...string) *setting, in *input) {
	add("AdaGrad", "18").in = in
	for _, k := range []string{"oja", "fd", "rfd", "rp", "ada_fd"} {
		add(k+" m=10", "18", "--"+k, "-m", "10").in = in
	}
}

// predictLearners trains AdaGrad and Oja-SON (m = 10) on in, one pass,
// and adds their test-only runs (-t -i model) over the same text: what
// predicting costs against learning, lookups and parsing included.
func predictLearners(add func(name, bits string, flags ...string) *setting, bin, dir string, in *input) error {
	for _, l := range []struct {
		name, file string
		flags      []string
	}{
		{"AdaGrad -t", "adagrad.model", nil},
		{"oja m=10 -t", "oja10.model", []string{"--oja", "-m", "10"}},
	} {
		model := filepath.Join(dir, l.file)
		args := append([]string{"--quiet", "--loss_function", "logistic", "-b", "18", "-f", model}, l.flags...)
		if _, err := run.Exec(bin, append(args, in.path)...); err != nil {
			return fmt.Errorf("training the model %s predicts with: %w", l.name, err)
		}
		add(l.name, "18", "-t", "-i", model).in = in
	}
	return nil
}

// newsText writes news20.train concatenated copies times as plain VW
// text: one pass over it is copies passes over news20 with parsing
// included (no cache).
func newsText(env *run.Env, train, dir string, copies int) (*input, error) {
	if env.Quick {
		copies = 1
	}
	path := filepath.Join(dir, fmt.Sprintf("news20x%d.vw", copies))
	mb, err := repeatFile(train, path, copies)
	if err != nil {
		return nil, err
	}
	return &input{label: fmt.Sprintf("news20.train×%d", copies), path: path, mb: mb}, nil
}

// synthText writes the synthetic suite's two families (Luo et al. (NIPS 2016), §5.1's
// rotated set and the per-coordinate scaled one) at κ = synthKappa with
// the paper's T = 10000 examples (d = 100, dense), by the synthetic suite
// itself (-write), each as LIBSVM text concatenated copies times.
func synthText(env *run.Env, dir string, copies int) ([]*input, error) {
	T := 10000
	if env.Quick {
		T, copies = run.QuickLines, 1
	}
	var ins []*input
	for _, family := range []string{"rotated", "scaled"} {
		if err := writeSynthetic(dir, family, T); err != nil {
			return nil, fmt.Errorf("synthetic %s: %w", family, err)
		}
		one := filepath.Join(dir, family+"_k"+synthKappa+".svm")
		path := filepath.Join(dir, fmt.Sprintf("%s_k%s_x%d.svm", family, synthKappa, copies))
		mb, err := repeatFile(one, path, copies)
		if err != nil {
			return nil, err
		}
		ins = append(ins, &input{label: fmt.Sprintf("%s κ=%s ×%d", family, synthKappa, copies), path: path, mb: mb})
	}
	return ins, nil
}

// writeSynthetic runs the synthetic suite's -write in a child process of
// this program (the bench command): its matrices (T×d twice) would
// otherwise raise this process's peak RSS, which every later child
// reports as its own (see repeatFile). In a test binary it runs here.
func writeSynthetic(dir, family string, T int) error {
	args := []string{"-write", dir, "-family", family, "-T", strconv.Itoa(T), "-kappas", synthKappa}
	if self, err := os.Executable(); err == nil && !testing.Testing() {
		cmd := exec.Command(self, append([]string{"synthetic"}, args...)...)
		cmd.Stderr = os.Stderr
		return cmd.Run()
	}
	return synthetic.Main(run.NewEnv(), args)
}

// repeatFile writes the text of src (plain or gzip) copies times to dst
// and returns its size in MB. It streams: the bench process must stay
// small, because a child started by os/exec (vfork) inherits the
// parent's peak RSS as its own ru_maxrss, which the tables report.
func repeatFile(src, dst string, copies int) (float64, error) {
	w, err := os.Create(dst)
	if err != nil {
		return 0, err
	}
	var n int64
	for i := 0; i < copies; i++ {
		f, err := os.Open(src)
		if err != nil {
			w.Close()
			return 0, err
		}
		var r io.Reader = f
		if br := bufio.NewReader(f); true {
			r = br
			if b, _ := br.Peek(2); len(b) == 2 && b[0] == 0x1f && b[1] == 0x8b {
				zr, err := gzip.NewReader(br)
				if err != nil {
					f.Close()
					w.Close()
					return 0, fmt.Errorf("%s: %w", src, err)
				}
				r = zr
			}
		}
		c, err := io.Copy(w, r)
		f.Close()
		n += c
		if err != nil {
			w.Close()
			return 0, fmt.Errorf("%s: %w", src, err)
		}
	}
	return float64(n) / 1e6, w.Close()
}
