// Package news20mc is the news20mc suite of go run ./bench; it writes 20
// Newsgroups as a 20-class problem in VW text from the shared data:
// news20mc.train.vw.gz and news20mc.test.vw.gz, the lines of
// news20.{train,test}.vw.gz with each post's newsgroup as its class (1…20,
// the groups in alphabetical order: alt.atheism = 1 … talk.religion.misc =
// 20; bench/internal/news20.Groups).
//
//	go run ./bench news20mc [-data ../shared/data] [-out bench/out]
//
// With -testdata DIR it writes the small set bundled for the tests
// instead, testdata/news20mc.{train,test}.vw.gz: the first 800 training
// and 400 test posts, keeping only the words of training document
// frequency rank 31…1030 (the 30 most frequent words, "the" … "all",
// carry no class) — about 60 features a post and 150 KB in all.
package news20mc

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sparseson/sparseson/bench/internal/news20"
	"github.com/sparseson/sparseson/bench/internal/run"
)

// Main runs the suite with its command-line arguments.
func Main(env *run.Env, args []string) error {
	fs := flag.NewFlagSet("news20mc", flag.ContinueOnError)
	env.Register(fs)
	testdata := fs.String("testdata", "", "write the small bundled test set into this directory instead")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := env.Start(); err != nil {
		return err
	}
	dir := env.Out
	var filters map[string]*news20.Filter
	if env.Quick {
		filters = map[string]*news20.Filter{"train": {Lines: run.QuickLines}, "test": {Lines: run.QuickLines}}
	}
	if *testdata != "" {
		dir = *testdata
		vocab, err := news20.Vocabulary(env.Data)
		if err != nil {
			return err
		}
		word := func(w string) bool { r := vocab[w]; return r > 30 && r <= 1030 }
		filters = map[string]*news20.Filter{"train": {Lines: 800, Word: word}, "test": {Lines: 400, Word: word}}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, split := range []string{"train", "test"} {
		path := filepath.Join(dir, "news20mc."+split+".vw.gz")
		counts, err := news20.Write(env.Data, split, path, filters[split])
		if err != nil {
			return err
		}
		fmt.Printf("%s: per class %v\n", path, counts)
		var n float64
		for _, c := range counts {
			n += float64(c)
		}
		if err := env.Finite("news20mc "+split, n); err != nil {
			return err
		}
	}
	return nil
}
