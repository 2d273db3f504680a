package parser

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/sparseson/sparseson/hashing"
	"github.com/sparseson/sparseson/sparse"
)

// Defaults for the zero values of Options.
const (
	DefaultMaxLineBytes = 256 << 20
	DefaultChunkBytes   = 128 << 10
)

// Options configure Open and OpenCache.
type Options struct {
	Format Format // Auto by default
	// Hash is how features are hashed. Its MaxFeatures also bounds the
	// words of a line (maxWords), which the reader counts as the line
	// comes in, so that a line far over the limit is skipped before it is
	// held whole.
	Hash hashing.Config
	// Workers is the number of parsing goroutines; 0 means GOMAXPROCS.
	Workers int
	// MaxLineBytes bounds a line; longer lines are reported as malformed
	// and skipped without being held in memory. 0 means 256 MiB.
	MaxLineBytes int
	// ChunkBytes is how much text is read and handed to a worker at a
	// time; 0 means 128 KiB.
	ChunkBytes int
	// Stdin is read for the input name "-"; nil means os.Stdin.
	Stdin io.Reader
	// Classes, when positive, makes labels classes of a K-class problem:
	// a labeled line whose label is not an integer in 1…K is malformed
	// (CheckClass). A cache holds only the examples that passed.
	Classes int
	// Audit records the features' names (hashing.Builder.SetAudit) in
	// Batch.Names, for --audit and --invert_hash. A cache holds no names.
	Audit bool
}

func (o Options) withDefaults() Options {
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.MaxLineBytes <= 0 {
		o.MaxLineBytes = DefaultMaxLineBytes
	}
	if o.ChunkBytes <= 0 {
		o.ChunkBytes = DefaultChunkBytes
	}
	return o
}

// Batch is a run of consecutive examples of the input, with the malformed
// lines met among them. Its contents belong to the Source again once
// passed to Release.
type Batch struct {
	Examples []sparse.Example
	Errors   []ParseError
	// ErrorAt[i] is how many of Examples precede Errors[i] in the input.
	ErrorAt []int
	// Names[i] are the named features of Examples[i] when Options.Audit
	// is set (text sources only), else nil.
	Names [][]hashing.AuditFeature

	// The examples' features live side by side in one arena per batch
	// (Idx and Val of each example are windows of idx and val), so a
	// batch holds about as many features as its chunk has, not, as when
	// each example kept its own buffers, the largest line each example
	// slot ever held: those only grew, and on ten passes over news20 a
	// file's batches had ratcheted up to 40 MB. used is what the examples
	// kept so far occupy; spill counts the features of examples that did
	// not fit (their buffers were allocated apart), so that the next use
	// of the batch makes room for all of them.
	idx   []uint32
	val   []float64
	used  int
	spill int
	high  int
}

// minArena is the smallest arena a batch starts with, in features.
const minArena = 4 << 10

func (b *Batch) reset() {
	b.Names = b.Names[:0]
	b.Examples = b.Examples[:0]
	b.Errors = b.Errors[:0]
	b.ErrorAt = b.ErrorAt[:0]
	// Size the arena for what the last use of the batch needed: grown
	// when examples spilled over it, and shrunk again once a run of long
	// lines has passed, so that one huge line does not pin its memory in
	// every batch for the rest of the run.
	need := max(b.used+b.spill, minArena)
	// high is the need of recent uses, decaying by 1/16 a use: a batch
	// that carries a few lines now and then (the end of an input, a live
	// stdin) keeps the arena its full chunks need.
	b.high = max(need, b.high-b.high/16)
	size := len(b.idx)
	switch {
	case b.spill > 0 || size < need:
		size = max(size, 2*need) // never smaller while growing
	case size > 4*b.high:
		size = b.high + b.high/4
	}
	if size != len(b.idx) {
		b.idx, b.val = make([]uint32, size), make([]float64, size)
	}
	b.used, b.spill = 0, 0
}

// next returns the example slot after the current ones, its feature
// buffers a window of the rest of the arena. The slot only counts once
// keep is called.
func (b *Batch) next() *sparse.Example {
	n := len(b.Examples)
	if n == cap(b.Examples) {
		b.Examples = append(b.Examples, sparse.Example{})[:n]
	}
	ex := &b.Examples[:n+1][n]
	ex.Idx, ex.Val = b.idx[b.used:b.used:len(b.idx)], b.val[b.used:b.used:len(b.val)]
	return ex
}

// keep counts the example filled in the slot next returned. Its features
// stay where they are: in the arena, or, if they did not fit there, in
// buffers of their own that are dropped when the slot is reused.
func (b *Batch) keep() {
	n := len(b.Examples)
	ex := &b.Examples[:n+1][n]
	k := len(ex.Idx)
	if k > 0 && b.used+k <= len(b.idx) && &ex.Idx[0] == &b.idx[b.used] {
		b.used += k
	} else {
		b.spill += k
	}
	// Full slices: nothing appended to an example may run into the next.
	ex.Idx, ex.Val = ex.Idx[:k:k], ex.Val[:k:k]
	b.Examples = b.Examples[:n+1]
}

// keepNames records the names of the example about to be kept.
func (b *Batch) keepNames(names []hashing.AuditFeature) {
	n := len(b.Names)
	if n == cap(b.Names) {
		b.Names = append(b.Names, nil)[:n]
	}
	b.Names = b.Names[:n+1]
	b.Names[n] = append(b.Names[n][:0], names...)
}

func (b *Batch) addError(file string, line int64, msg string) {
	b.Errors = append(b.Errors, ParseError{File: file, Line: line, Msg: msg})
	b.ErrorAt = append(b.ErrorAt, len(b.Examples))
}

// Source delivers examples in batches, in input order.
type Source interface {
	// Next returns the next batch. It returns io.EOF after the last one;
	// any other error is fatal (I/O, a truncated or corrupt compressed
	// stream or cache) and is returned again by later calls.
	Next() (*Batch, error)
	// Release gives a batch back for reuse. The caller must not touch
	// it, nor the examples in it, afterwards.
	Release(*Batch)
	// Close stops the Source and its goroutines; it may be called at any
	// time, also before the input is exhausted. For standard input it may
	// have to wait for a pending read to return.
	Close() error
	// Stats counts what has been delivered so far.
	Stats() Stats
}

// Stats counts what a Source has delivered.
type Stats struct {
	Bytes    int64 // of text (after decompression), or of cache records
	Lines    int64 // including blank ones
	Examples int64
	Skipped  int64 // malformed lines
}

// chunk is a unit of work: whole lines (or cache records) of one input.
type chunk struct {
	seq    int64
	buf    []byte // owned buffer; data is a window of it
	data   []byte
	file   string
	line   int64 // number of the first line in data
	format Format
	// sniffAt is the line of the input that format was sniffed from; 0
	// if it was given, sniffedNothing if no line told it (see Auto).
	sniffAt int64
	lines   int64 // lines in data, for Stats
	bytes   int64 // input bytes consumed for this chunk, for Stats
	pre     []ParseError
	batch   *Batch
	err     error // fatal, reported after all earlier chunks
	eof     bool  // end marker
}

// pipeline is the machinery shared by text and cache sources: a reader
// goroutine producing chunks, workers turning them into batches, and Next
// putting them back in order.
type pipeline struct {
	opt     Options
	slots   int
	free    chan *chunk
	work    chan *chunk
	results chan *chunk
	batches chan *Batch
	done    chan struct{}
	wg      sync.WaitGroup

	atEOF func() error // last check before reporting io.EOF, if set

	pending []*chunk // results that arrived early, by seq % slots
	next    int64
	err     error // sticky result of Next

	stopOnce sync.Once
	curMu    sync.Mutex
	cur      *input // the input being read, closed by Close to unblock it

	bytes, lines, examples, skipped atomic.Int64
}

func newPipeline(opt Options) *pipeline {
	slots := 2*opt.Workers + 2
	p := &pipeline{
		opt:     opt,
		slots:   slots,
		free:    make(chan *chunk, slots),
		work:    make(chan *chunk, slots),
		results: make(chan *chunk, slots),
		batches: make(chan *Batch, slots+1),
		done:    make(chan struct{}),
		pending: make([]*chunk, slots),
	}
	for i := 0; i < slots; i++ {
		p.free <- &chunk{buf: make([]byte, opt.ChunkBytes)}
	}
	return p
}

// start runs the reader and the workers; work turns a chunk into a batch
// (or a fatal error) using per-worker state made by newState.
func (p *pipeline) start(read func(), newState func() func(*chunk, *Batch) error) {
	p.wg.Add(1 + p.opt.Workers)
	go func() {
		defer p.wg.Done()
		read()
	}()
	for i := 0; i < p.opt.Workers; i++ {
		work := newState()
		go func() {
			defer p.wg.Done()
			p.worker(work)
		}()
	}
}

func (p *pipeline) worker(work func(*chunk, *Batch) error) {
	for {
		var c *chunk
		select {
		case c = <-p.work:
		case <-p.done:
			return
		}
		var b *Batch
		select {
		case b = <-p.batches:
		default:
			b = &Batch{}
		}
		b.reset()
		if err := work(c, b); err != nil {
			c.err = err
			p.Release(b)
		} else {
			c.batch = b
		}
		// Never blocks: results has room for every chunk there is.
		p.results <- c
	}
}

// getChunk takes a free chunk, waiting for the consumer if all are in
// flight; that wait is what bounds memory. It returns nil once closed.
func (p *pipeline) getChunk() *chunk {
	select {
	case c := <-p.free:
		c.data, c.pre, c.batch, c.err, c.eof = nil, c.pre[:0], nil, nil, false
		c.lines, c.bytes = 0, 0
		return c
	case <-p.done:
		return nil
	}
}

// send hands a chunk to the workers, or straight to Next for chunks with
// nothing to parse (end marker, fatal error).
func (p *pipeline) send(c *chunk, seq *int64, parse bool) bool {
	c.seq = *seq
	*seq++
	ch := p.results
	if parse {
		ch = p.work
	}
	select {
	case ch <- c:
		return true
	case <-p.done:
		return false
	}
}

// finish ends the stream with err: io.EOF for a clean end, nil when the
// pipeline was closed (nobody is listening any more).
func (p *pipeline) finish(seq *int64, err error) {
	if err == nil {
		return
	}
	c := p.getChunk()
	if c == nil {
		return
	}
	if err == io.EOF {
		c.eof = true
	} else {
		c.err = err
	}
	p.send(c, seq, false)
}

func (p *pipeline) setCurrent(in *input) {
	p.curMu.Lock()
	p.cur = in
	p.curMu.Unlock()
}

var errClosed = errors.New("parser: source closed")

func (p *pipeline) Next() (*Batch, error) {
	if p.err != nil {
		return nil, p.err
	}
	select {
	case <-p.done:
		p.err = errClosed
		return nil, p.err
	default:
	}
	for {
		i := int(p.next % int64(p.slots))
		if c := p.pending[i]; c != nil && c.seq == p.next {
			p.pending[i] = nil
			p.next++
			return p.deliver(c)
		}
		select {
		case c := <-p.results:
			p.pending[int(c.seq%int64(p.slots))] = c
		case <-p.done:
			p.err = errClosed
			return nil, p.err
		}
	}
}

func (p *pipeline) deliver(c *chunk) (*Batch, error) {
	b := c.batch
	p.bytes.Add(c.bytes)
	p.lines.Add(c.lines)
	if b != nil {
		p.examples.Add(int64(len(b.Examples)))
		p.skipped.Add(int64(len(b.Errors)))
	}
	switch {
	case c.eof:
		p.err = io.EOF
		if p.atEOF != nil {
			if err := p.atEOF(); err != nil {
				p.err = err
			}
		}
	case c.err != nil:
		p.err = c.err
	}
	c.batch = nil
	p.free <- c // never blocks: it came from there
	if p.err != nil {
		if b != nil {
			p.Release(b)
		}
		return nil, p.err
	}
	return b, nil
}

func (p *pipeline) Release(b *Batch) {
	if b == nil {
		return
	}
	select {
	case p.batches <- b:
	default:
	}
}

func (p *pipeline) Close() error {
	p.stopOnce.Do(func() {
		close(p.done)
		p.curMu.Lock()
		if p.cur != nil {
			p.cur.close() // unblocks a read in progress
		}
		p.curMu.Unlock()
		p.wg.Wait()
	})
	return nil
}

func (p *pipeline) Stats() Stats {
	return Stats{
		Bytes:    p.bytes.Load(),
		Lines:    p.lines.Load(),
		Examples: p.examples.Load(),
		Skipped:  p.skipped.Load(),
	}
}

// textSource reads VW or LIBSVM text.
type textSource struct {
	*pipeline
	names []string
}

// Open starts reading the named inputs, in order ("-" is opt.Stdin), and
// returns a Source of their examples. Errors opening an input are
// reported by Next when its turn comes.
func Open(names []string, opt Options) (Source, error) {
	opt = opt.withDefaults()
	if err := opt.Hash.Validate(); err != nil {
		return nil, err
	}
	if opt.Format > LIBSVM {
		return nil, fmt.Errorf("unknown format %v", opt.Format)
	}
	// Fail early on inputs that cannot be opened; the reader reports any
	// that go missing later.
	for _, name := range names {
		if name == "-" {
			continue
		}
		if _, err := os.Stat(name); err != nil {
			return nil, err
		}
	}
	s := &textSource{pipeline: newPipeline(opt), names: names}
	s.start(s.read, func() func(*chunk, *Batch) error {
		b, _ := hashing.NewBuilder(opt.Hash) // config validated above
		b.SetAudit(opt.Audit)
		return func(c *chunk, batch *Batch) error {
			s.parseChunk(c, b, batch)
			return nil
		}
	})
	return s, nil
}

var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// read is the reader goroutine: it cuts each input into chunks of whole
// lines.
func (s *textSource) read() {
	var seq int64
	for _, name := range s.names {
		if err := s.readInput(name, &seq); err != nil {
			s.finish(&seq, err)
			return
		}
		select {
		case <-s.done:
			return
		default:
		}
	}
	s.finish(&seq, io.EOF)
}

// errStop means the pipeline was closed while reading.
var errStop = errors.New("stop")

func (s *textSource) readInput(name string, seq *int64) (err error) {
	in, err := openInput(name, s.opt.Stdin)
	if err != nil {
		return err
	}
	s.setCurrent(in)
	defer func() {
		s.setCurrent(nil)
		in.release()
		if cerr := in.close(); cerr != nil && err == nil {
			err = fmt.Errorf("close %s: %w", in.name, cerr)
		}
		if err == errStop {
			err = nil
		}
	}()
	r := &lineReader{
		s:       s,
		in:      in,
		live:    in.file == nil && in.comp == plain,
		line:    1,
		format:  s.opt.Format,
		decided: s.opt.Format != Auto,
		first:   true,
	}
	for !r.eof {
		c := s.getChunk()
		if c == nil {
			return errStop
		}
		if err := r.fillChunk(c); err != nil {
			s.free <- c
			return err
		}
		if len(c.data) == 0 && len(c.pre) == 0 && c.bytes == 0 {
			s.free <- c
			continue
		}
		if !s.send(c, seq, true) {
			return errStop
		}
	}
	return nil
}

// lineReader is the state of reading one input into chunks.
type lineReader struct {
	s       *textSource
	in      *input
	live    bool  // plain stdin: pass lines on as soon as they come
	line    int64 // number of the first line not yet in a chunk
	format  Format
	decided bool  // format is known (given, or sniffed)
	sniffAt int64 // as chunk.sniffAt
	first   bool  // nothing read yet (a BOM may come)
	eof     bool
	carry   []byte // partial last line, inside the previous chunk's buffer
	pre     []ParseError
}

// fillChunk reads the next run of whole lines of the input into c. Lines
// too long (MaxLineBytes) or of too many words (maxWords) are reported in
// c.pre and skipped as they stream by, never held whole.
func (r *lineReader) fillChunk(c *chunk) error {
	opt := &r.s.opt
	// The buffer must hold the carried partial line with room to spare;
	// one grown for a long line goes back to the normal size once that
	// line is gone, so memory stays bounded by the usual sizes.
	want := opt.ChunkBytes
	if 2*len(r.carry) > want {
		want = max(min(2*len(r.carry), opt.MaxLineBytes+1), len(r.carry))
	}
	if cap(c.buf) < want || cap(c.buf) > 4*want {
		c.buf = make([]byte, want)
	}
	buf := c.buf[:cap(c.buf)]
	n := copy(buf, r.carry)
	r.carry = nil
	var skipped int64 // bytes of skipped lines (and a BOM)
	var sn sniffer
	var long longLine
	for {
		var err error
		if n, err = r.fill(buf, n); err != nil {
			return err
		}
		if r.first && n > 0 {
			r.first = false
			if hasPrefix(buf[:n], utf8BOM) {
				copy(buf, buf[3:n])
				n -= 3
				skipped += 3
			}
		}
		if !r.decided && long.size == 0 && r.sniff(&sn, buf[:n]) {
			// Hold the lines that told nothing until one does.
			if n == len(buf) {
				buf = grow(c, buf, n, sniffHold)
			}
			continue
		}
		if r.eof || bytes.IndexByte(buf[:n], '\n') >= 0 {
			if long.size > 0 {
				buf, n = long.join(c, buf[:n])
			}
			break
		}
		if n < len(buf) {
			continue // a BOM was dropped: fill the buffer first
		}
		// The buffer holds part of a line longer than it: keep the part,
		// or give up on the line once it has more words or bytes than a
		// line may have.
		msg := long.add(buf, opt)
		if msg == "" {
			buf = make([]byte, max(len(buf), minPart))
			c.buf, n = buf, 0
			continue
		}
		skipped += int64(long.size)
		long = longLine{}
		r.pre = append(r.pre, ParseError{File: r.in.name, Line: r.line, Msg: msg})
		r.line++
		if skipped, n, err = r.discardLine(buf, n, skipped); err != nil {
			return err
		}
		sn = sniffer{}
	}
	data := buf[:n]
	if !r.eof {
		if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
			r.carry = data[i+1:]
			data = data[:i+1]
		} else {
			r.carry, data = data, data[:0]
		}
	}
	c.data = data
	c.file = r.in.name
	c.line = r.line
	c.lines = int64(bytes.Count(data, []byte{'\n'}))
	if len(data) > 0 && data[len(data)-1] != '\n' {
		c.lines++
	}
	r.line += c.lines
	c.lines += int64(len(r.pre)) // the discarded lines
	c.bytes = int64(len(data)) + skipped
	c.pre = append(c.pre[:0], r.pre...)
	r.pre = r.pre[:0]
	c.format, c.sniffAt = r.format, r.sniffAt
	if !r.decided {
		c.format = LIBSVM // see Auto
	}
	return nil
}

// sniff looks for the line that tells the format in data, the text from
// the first line not yet in a chunk. It reports whether to read on and
// hold data meanwhile.
func (r *lineReader) sniff(sn *sniffer, data []byte) bool {
	f, at, ok := sn.scan(data, r.eof)
	switch {
	case ok:
		r.format, r.decided, r.sniffAt = f, true, r.line+at
	case r.eof:
	case len(data) < sniffHold:
		return true
	case sn.pos > 0:
		r.format, r.decided, r.sniffAt = LIBSVM, true, sniffedNothing
	}
	// Else one line fills the buffer: the long-line rules take it, and
	// sniffing starts again after it.
	return false
}

// fill reads into buf after its first n bytes until it is full or the
// input ends. Plain stdin may be a pipe fed line by line (predictions on a
// live stream): there, whole lines are passed on as soon as a read returns
// them rather than held back until the buffer is full.
func (r *lineReader) fill(buf []byte, n int) (int, error) {
	for n < len(buf) && !r.eof {
		m, err := r.in.r.Read(buf[n:])
		n += m
		if r.live && m > 0 && err == nil && bytes.IndexByte(buf[n-m:n], '\n') >= 0 {
			break
		}
		if err == io.EOF {
			r.eof = true
		} else if err != nil {
			select {
			case <-r.s.done:
				return n, errStop
			default:
			}
			return n, r.in.readErr(err)
		}
	}
	return n, nil
}

// longLine holds the start of a line longer than the chunk buffer, as the
// buffers it filled. Grown by doubling one buffer, such a line cost up to
// three times its size (the buffer it outgrew, the new one, and the
// garbage of the ones before), all before its words were counted.
type longLine struct {
	parts [][]byte
	size  int
	words wordCount
}

// minPart is the least size of a part of a long line, so that a small
// ChunkBytes does not cut a long line into a great many pieces.
const minPart = 64 << 10

// add takes buf, full with part of a long line, unless the line has
// outgrown the limits: then it returns why, and the line is to be skipped.
func (l *longLine) add(buf []byte, opt *Options) string {
	l.words.pos = 0 // counts go on from the previous part
	switch {
	case l.words.count(buf) > maxWords(opt):
		return tooManyWords(opt)
	case l.size+len(buf) > opt.MaxLineBytes:
		return fmt.Sprintf("line longer than %d bytes", opt.MaxLineBytes)
	}
	l.parts = append(l.parts, buf)
	l.size += len(buf)
	return ""
}

// join gives c one buffer holding the parts and then tail.
func (l *longLine) join(c *chunk, tail []byte) ([]byte, int) {
	buf := make([]byte, l.size+len(tail))
	k := 0
	for _, p := range l.parts {
		k += copy(buf[k:], p)
	}
	copy(buf[k:], tail)
	c.buf = buf
	*l = longLine{}
	return buf, len(buf)
}

// grow gives c a buffer twice the size of buf (at most limit) holding its
// first n bytes.
func grow(c *chunk, buf []byte, n, limit int) []byte {
	nb := make([]byte, max(min(2*len(buf), limit), len(buf)))
	copy(nb, buf[:n])
	c.buf = nb
	return nb
}

// maxWords is the most words a line may have: one per feature, and the
// label, importance, initial prediction and tag before them. A word that
// starts with '|' (a namespace) does not count; nor can it hold a feature.
func maxWords(opt *Options) int {
	m := opt.Hash.MaxFeatures
	if m <= 0 {
		m = hashing.DefaultMaxFeatures
	}
	return m + 4
}

// tooManyWords is the message of a line over maxWords. Such a line is
// refused as soon as its words are counted, before it is held whole, even
// though values of 0 or an ignored namespace might have left it within the
// limit on features: holding it would cost as much.
func tooManyWords(opt *Options) string {
	return fmt.Sprintf("more than %d words: a line may have at most %d features", maxWords(opt), maxWords(opt)-4)
}

// wordCount counts the words of a line as it comes in, looking at each
// byte once.
type wordCount struct {
	pos    int
	words  int
	inWord bool
}

func (w *wordCount) count(line []byte) int {
	for _, c := range line[w.pos:] {
		if c == ' ' || c == '\t' {
			w.inWord = false
		} else if !w.inWord {
			w.inWord = true
			if c != '|' {
				w.words++
			}
		}
	}
	w.pos = len(line)
	return w.words
}

// discardLine reads on past an overlong line whose first n bytes are in
// buf, up to and including its newline. It leaves what follows the newline
// at the start of buf and returns its length.
func (r *lineReader) discardLine(buf []byte, n int, skipped int64) (int64, int, error) {
	for {
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			skipped += int64(i + 1)
			return skipped, copy(buf, buf[i+1:n]), nil
		}
		skipped += int64(n)
		m, err := r.in.r.Read(buf)
		n = m
		if err == io.EOF {
			r.eof = true
			if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
				skipped += int64(i + 1)
				return skipped, copy(buf, buf[i+1:n]), nil
			}
			return skipped + int64(n), 0, nil
		}
		if err != nil {
			return skipped, 0, r.in.readErr(err)
		}
		select {
		case <-r.s.done:
			return skipped, 0, errStop
		default:
		}
	}
}

// parseChunk parses the lines of c into batch.
func (s *textSource) parseChunk(c *chunk, b *hashing.Builder, batch *Batch) {
	for _, e := range c.pre {
		batch.Errors = append(batch.Errors, e)
		batch.ErrorAt = append(batch.ErrorAt, 0)
	}
	parse := ParseVWLine
	if c.format == LIBSVM {
		parse = ParseLIBSVMLine
	}
	maxLine := s.opt.MaxLineBytes
	maxW := maxWords(&s.opt)
	data := c.data
	line := c.line
	for len(data) > 0 {
		var l []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			l, data = data, nil
		}
		if len(l) > maxLine {
			batch.addError(c.file, line, fmt.Sprintf("line longer than %d bytes", maxLine))
			line++
			continue
		}
		// A word takes two bytes with its separator: only a line that long
		// can have too many (the reader has refused longer lines already).
		if len(l) > 2*maxW {
			var w wordCount
			if w.count(l) > maxW {
				batch.addError(c.file, line, tooManyWords(&s.opt))
				line++
				continue
			}
		}
		ex := batch.next()
		err := parse(l, b, ex)
		if err == nil && s.opt.Classes > 0 {
			err = CheckClass(ex, s.opt.Classes)
		}
		switch err {
		case nil:
			if s.opt.Audit {
				batch.keepNames(b.Audit())
			}
			batch.keep()
		case ErrBlankLine:
		default:
			batch.addError(c.file, line, s.lineError(c, l, err))
		}
		line++
	}
}

// lineError is the message for a malformed line: its error, or, when the
// format was sniffed and the line is plainly in the other one, that.
func (s *textSource) lineError(c *chunk, l []byte, err error) string {
	if c.sniffAt == 0 {
		return err.Error()
	}
	f := lineFormat(l)
	switch {
	case f == Auto || f == c.format:
		return err.Error()
	case c.sniffAt == sniffedNothing:
		return fmt.Sprintf("looks like %s, but the input is read as %s: nothing in its first %d bytes told its format; use --format",
			formatName(f), formatName(c.format), sniffHold)
	}
	return fmt.Sprintf("looks like %s, but the input was sniffed as %s from line %d; use --format",
		formatName(f), formatName(c.format), c.sniffAt)
}
