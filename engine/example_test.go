package engine_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"strings"

	"github.com/sparseson/sparseson/engine"
	"github.com/sparseson/sparseson/learners"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/sparse"
)

// train is a small data set in VW's text format: the label, then the
// features of namespace f.
const train = `1 |f a b
-1 |f c d
1 |f a e
-1 |f c e
1 |f b
-1 |f d
`

// trainModel trains the default learner (AdaGrad, normalized; logistic
// loss) on text and saves it to path.
func trainModel(text, path string) {
	cfg := engine.Defaults()
	cfg.Options = learners.DefaultOptions(18)
	cfg.Options["loss"] = "logistic"
	cfg.Stdin = strings.NewReader(text)
	cfg.Quiet = true
	cfg.Final = path
	e, err := engine.New(cfg)
	if err != nil {
		log.Fatal(err)
	}
	if err := e.Run(context.Background()); err != nil {
		log.Fatal(err)
	}
}

// Train from an io.Reader of VW text, save the model, load it and
// predict.
func Example() {
	dir, err := os.MkdirTemp("", "sparseson-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "model")
	trainModel(strings.Repeat(train, 20), path)

	// The learner alone: raw scores of hashed examples.
	l, err := learners.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	// An engine on the saved model parses text as the model hashes it and
	// predicts through the model's output stack (here: the clipped score).
	cfg := engine.Defaults()
	cfg.Initial, cfg.TestOnly, cfg.Quiet = path, true, true
	e, err := engine.New(cfg)
	if err != nil {
		log.Fatal(err)
	}
	for _, line := range []string{"|f a b", "|f c d"} {
		var ex sparse.Example
		if err := e.ParseLine([]byte(line), &ex); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: positive %v, the learner agrees %v\n", line, e.Predict(&ex) > 0, l.Predict(&ex) > 0)
	}
	// Output:
	// |f a b: positive true, the learner agrees true
	// |f c d: positive false, the learner agrees false
}

// positive reports whether the model at path predicts a positive label
// for a line of VW text.
func positive(path, line string) bool {
	cfg := engine.Defaults()
	cfg.Initial, cfg.TestOnly, cfg.Quiet = path, true, true
	e, err := engine.New(cfg)
	if err != nil {
		log.Fatal(err)
	}
	var ex sparse.Example
	if err := e.ParseLine([]byte(line), &ex); err != nil {
		log.Fatal(err)
	}
	return e.Predict(&ex) > 0
}

// Merge two models trained on the two halves of the data, save the merged
// model and predict with it.
func ExampleMerge() {
	dir, err := os.MkdirTemp("", "sparseson-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	lines := strings.SplitAfter(strings.Repeat(train, 20), "\n")
	half := len(lines) / 2
	var args sparse.MergeArgs
	var opts model.Options
	for i, part := range []string{strings.Join(lines[:half], ""), strings.Join(lines[half:], "")} {
		path := filepath.Join(dir, fmt.Sprint("part", i))
		trainModel(part, path)
		l, o, err := learners.Load(path)
		if err != nil {
			log.Fatal(err)
		}
		args.Parts, opts = append(args.Parts, l), o
	}
	merged, err := learners.Merge(opts, &args)
	if err != nil {
		log.Fatal(err)
	}
	path := filepath.Join(dir, "merged")
	if err := model.Save(path, opts, merged.Save); err != nil {
		log.Fatal(err)
	}
	fmt.Println(positive(path, "|f a b"), positive(path, "|f c d"))
	// Output:
	// true false
}
