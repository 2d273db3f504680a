package doccheck

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/sparseson/sparseson/internal/testbin"
)

// root is the repository root, seen from this package's directory (go test
// runs a package's tests in its own directory).
var root = filepath.Join("..", "..")

// longBlocks are the README's command blocks that no test runs as
// written, each with the reason. A block of README.md tagged sh is either
// here or run by TestREADMECommands, so a new command cannot go untested
// by accident; an entry here whose block left the README fails too.
var longBlocks = map[string]string{
	"go install github.com/sparseson/sparseson/cmd/sparseson@latest": "fetches the module from the network",
	"go test ./... && go run ./bench --quick":                        "the whole test suite and every benchmark suite: CI runs it (.ci/run)",
}

// maxREADME is the size the README is held to (issue 28: a user's guide of
// at most 25 KB; the rest lives in docs/).
const maxREADME = 25600

type block struct {
	lang, text string
	line       int // of the opening fence, 1-based
}

// fenced returns the fenced code blocks of a Markdown text and the text
// with them blanked out (line count kept, so that positions stay right).
func fenced(md string) ([]block, string) {
	var blocks []block
	lines := strings.Split(md, "\n")
	var prose []string
	var cur *block
	var body []string
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case cur == nil && strings.HasPrefix(t, "```"):
			cur = &block{lang: strings.TrimSpace(strings.TrimPrefix(t, "```")), line: i + 1}
			body = body[:0]
			prose = append(prose, "")
		case cur != nil && t == "```":
			cur.text = strings.Join(body, "\n")
			blocks = append(blocks, *cur)
			cur = nil
			prose = append(prose, "")
		case cur != nil:
			body = append(body, l)
			prose = append(prose, "")
		default:
			prose = append(prose, l)
		}
	}
	return blocks, strings.Join(prose, "\n")
}

func readDoc(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// docFiles lists README.md and docs/*.md, relative to the root.
func docFiles(t *testing.T) []string {
	t.Helper()
	md, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(md) == 0 {
		t.Fatal("no docs/*.md")
	}
	files := []string{"README.md"}
	for _, f := range md {
		rel, _ := filepath.Rel(root, f)
		files = append(files, rel)
	}
	return files
}

func isShell(lang string) bool { return lang == "sh" || lang == "bash" || lang == "shell" }

// TestREADMEBlocksTagged: every code block says what it holds, so that
// TestREADMECommands can tell commands (sh) from output and formats (text).
func TestREADMEBlocksTagged(t *testing.T) {
	blocks, _ := fenced(readDoc(t, "README.md"))
	if len(blocks) == 0 {
		t.Fatal("README.md has no code blocks")
	}
	for _, b := range blocks {
		if b.lang == "" {
			t.Errorf("README.md:%d: code block without a language (sh for commands, text for output)", b.line)
		}
	}
}

// workDir makes a directory that looks like the repository root to the
// README's commands — its top-level directories and go.mod/go.sum linked
// in — so that they run as written without writing into the checkout.
func workDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") || (!e.IsDir() && name != "go.mod" && name != "go.sum") {
			continue
		}
		abs, err := filepath.Abs(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(abs, filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestREADMECommands runs every sh block of README.md, in order, as bash
// would from the repository root (in a copy of it made of links: see
// workDir); the first blocks build ./sparseson, the later ones use it.
// A block is skipped only if longBlocks lists it.
func TestREADMECommands(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the README's commands build the binary and train several models")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash to run the README's commands")
	}
	blocks, _ := fenced(readDoc(t, "README.md"))
	dir := workDir(t)
	seen := map[string]bool{}
	ran := 0
	for _, b := range blocks {
		if !isShell(b.lang) {
			continue
		}
		text := strings.TrimSpace(b.text)
		if why, ok := longBlocks[text]; ok {
			seen[text] = true
			t.Logf("README.md:%d: not run (%s): %s", b.line, why, text)
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		cmd := exec.CommandContext(ctx, "bash", "-e", "-o", "pipefail", "-c", text)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("README.md:%d: %v\n%s\n--- output ---\n%s", b.line, err, text, tail(out))
		}
		ran++
	}
	for text := range longBlocks {
		if !seen[text] {
			t.Errorf("longBlocks lists a block README.md no longer has: %q", text)
		}
	}
	if ran == 0 {
		t.Error("no README command ran")
	}
	checkIgnored(t, dir)
}

// checkIgnored: every file the README's commands left in the working
// directory is one .gitignore covers, so that a user who runs them in a
// clone keeps it clean (issue 24: splice.model was left untracked).
func checkIgnored(t *testing.T, dir string) {
	t.Helper()
	if err := exec.Command("git", "-C", root, "rev-parse", "--is-inside-work-tree").Run(); err != nil {
		t.Logf("not a git work tree (or no git), .gitignore not checked: %v", err)
		return
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	written := 0
	for _, e := range entries {
		if e.Type()&os.ModeSymlink != 0 {
			continue // a link to the checkout, made by workDir
		}
		written++
		if err := exec.Command("git", "-C", root, "check-ignore", "-q", "--no-index", e.Name()).Run(); err != nil {
			t.Errorf("the README's commands write %s into the repository root, and .gitignore does not cover it", e.Name())
		}
	}
	if written == 0 {
		t.Error("the README's commands wrote nothing into the working directory; the check above cannot have looked at anything")
	}
}

func tail(b []byte) string {
	const n = 4000
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// binary builds the command once for the tests that read its --help.
func binary(t *testing.T) string {
	t.Helper()
	path, err := testbin.Build()
	if err != nil {
		t.Fatal(err)
	}
	return path
}

func TestMain(m *testing.M) { testbin.Main(m) }

// helpFlag matches a flag line of pflag's usage: "  -b, --bit_precision int".
var helpFlag = regexp.MustCompile(`(?m)^\s+(?:-[A-Za-z], )?--([A-Za-z][A-Za-z0-9_]*)`)

// TestEveryFlagDocumented: each long flag of `sparseson --help` and
// `sparseson merge --help` is named (as --flag) in README.md or docs/*.md.
func TestEveryFlagDocumented(t *testing.T) {
	bin := binary(t)
	var names []string
	for _, args := range [][]string{{"--help"}, {"merge", "--help"}} {
		var out bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			t.Fatalf("sparseson %s: %v\n%s", strings.Join(args, " "), err, out.String())
		}
		for _, m := range helpFlag.FindAllStringSubmatch(out.String(), -1) {
			names = append(names, m[1])
		}
	}
	if len(names) < 50 {
		t.Fatalf("found only %d flags in --help; has its layout changed?", len(names))
	}
	var all strings.Builder
	for _, f := range docFiles(t) {
		all.WriteString(readDoc(t, f))
	}
	docs := all.String()
	sort.Strings(names)
	for i, n := range names {
		if i > 0 && names[i-1] == n {
			continue
		}
		re := regexp.MustCompile(`--` + regexp.QuoteMeta(n) + `([^A-Za-z0-9_]|$)`)
		if !re.MatchString(docs) {
			t.Errorf("--%s (in --help) is documented in neither README.md nor docs/*.md", n)
		}
	}
}

// mdLink matches an inline Markdown link's target: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestLinksResolve: every relative link of README.md and docs/*.md names
// a file of the repository and, where it has one, an anchor of a heading
// in that file (GitHub's slugs).
func TestLinksResolve(t *testing.T) {
	for _, f := range docFiles(t) {
		_, prose := fenced(readDoc(t, f))
		for _, m := range mdLink.FindAllStringSubmatch(prose, -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			path, anchor, _ := strings.Cut(target, "#")
			file := f
			if path != "" {
				file = filepath.Join(filepath.Dir(f), path)
			}
			if _, err := os.Stat(filepath.Join(root, file)); err != nil {
				t.Errorf("%s: link %s: %v", f, target, err)
				continue
			}
			if anchor == "" || !strings.HasSuffix(file, ".md") {
				continue
			}
			if !anchors(readDoc(t, file))[anchor] {
				t.Errorf("%s: link %s: %s has no heading with that anchor", f, target, file)
			}
		}
	}
}

// anchors returns the anchors GitHub gives a Markdown file's headings.
func anchors(md string) map[string]bool {
	_, prose := fenced(md)
	set := map[string]bool{}
	count := map[string]int{}
	for _, l := range strings.Split(prose, "\n") {
		if !strings.HasPrefix(l, "#") {
			continue
		}
		s := slug(strings.TrimSpace(strings.TrimLeft(l, "#")))
		if n := count[s]; n > 0 {
			count[s]++
			s = fmt.Sprintf("%s-%d", s, n)
		} else {
			count[s] = 1
		}
		set[s] = true
	}
	return set
}

// slug is GitHub's heading anchor: lower case, letters, numbers, marks,
// '-' and '_' kept, spaces to '-', everything else dropped.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

func TestSlug(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"Limits, memory and signals", "limits-memory-and-signals"},
		{"Serving (--daemon)", "serving---daemon"},
		{"Speed: every learner at m ∈ {0, 5, 10, 20, 50}", "speed-every-learner-at-m--0-5-10-20-50"},
		{"13. The scaled form: α₀ from the data", "13-the-scaled-form-α₀-from-the-data"},
	} {
		if got := slug(tc.in); got != tc.want {
			t.Errorf("slug(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestCitations: the documents cite the papers by name (docs/references.md
// has the list), never by the file numbers of the project's copies, and
// the design notes by docs/algorithms.md's sections.
func TestCitations(t *testing.T) {
	bad := regexp.MustCompile(`(?i)seeds? 00[0-4]|sketches\.md`)
	for _, f := range docFiles(t) {
		for i, l := range strings.Split(readDoc(t, f), "\n") {
			if m := bad.FindString(l); m != "" {
				t.Errorf("%s:%d: cites %q; cite the paper (docs/references.md) or docs/algorithms.md §N", f, i+1, m)
			}
		}
	}
}

// TestAlgorithmsSections: docs/algorithms.md keeps the section numbers
// §1–§12 that code comments cite ("docs/algorithms.md §N"), in order.
func TestAlgorithmsSections(t *testing.T) {
	_, prose := fenced(readDoc(t, "docs/algorithms.md"))
	re := regexp.MustCompile(`(?m)^## (\d+)\. `)
	var got []string
	for _, m := range re.FindAllStringSubmatch(prose, -1) {
		got = append(got, m[1])
	}
	for i := 1; i <= 12; i++ {
		if len(got) < i || got[i-1] != fmt.Sprint(i) {
			t.Fatalf("docs/algorithms.md's numbered sections are %v; want 1…12 first, in order", got)
		}
	}
}

// TestREADMESize holds the README to a user's guide.
func TestREADMESize(t *testing.T) {
	if n := len(readDoc(t, "README.md")); n > maxREADME {
		t.Errorf("README.md is %d bytes; at most %d (move details to docs/)", n, maxREADME)
	}
}
