// Command news20mc writes 20 Newsgroups as a 20-class problem in VW text
// from the shared data: news20mc.train.vw.gz and news20mc.test.vw.gz, the
// lines of news20.{train,test}.vw.gz with each post's newsgroup as its
// class (1…20, the groups in alphabetical order: alt.atheism = 1 …
// talk.religion.misc = 20; bench/internal/news20.Groups).
//
//	go run ./bench/news20mc [-data ../shared/data] [-out bench/out]
//
// With -testdata DIR it writes the small set bundled for the tests
// instead, testdata/news20mc.{train,test}.vw.gz: the first 800 training
// and 400 test posts, keeping only the words of training document
// frequency rank 31…1030 (the 30 most frequent words, "the" … "all",
// carry no class) — about 60 features a post and 150 KB in all.
package main

import (
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/sparseson/sparseson/bench/internal/news20"
)

func main() {
	dataDir := flag.String("data", "../shared/data", "directory of the shared datasets")
	out := flag.String("out", "bench/out", "directory for the full 20-class files")
	testdata := flag.String("testdata", "", "write the small bundled test set into this directory instead")
	flag.Parse()
	dir := *out
	var filters map[string]*news20.Filter
	if *testdata != "" {
		dir = *testdata
		vocab, err := news20.Vocabulary(*dataDir)
		if err != nil {
			log.Fatal(err)
		}
		word := func(w string) bool { r := vocab[w]; return r > 30 && r <= 1030 }
		filters = map[string]*news20.Filter{"train": {Lines: 800, Word: word}, "test": {Lines: 400, Word: word}}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		log.Fatal(err)
	}
	for _, split := range []string{"train", "test"} {
		path := filepath.Join(dir, "news20mc."+split+".vw.gz")
		counts, err := news20.Write(*dataDir, split, path, filters[split])
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: per class %v\n", path, counts)
	}
}
