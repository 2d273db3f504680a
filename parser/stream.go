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
	Format Format         // Auto by default
	Hash   hashing.Config // how features are hashed
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
	lines  int64 // lines in data, for Stats
	bytes  int64 // input bytes consumed for this chunk, for Stats
	pre    []ParseError
	batch  *Batch
	err    error // fatal, reported after all earlier chunks
	eof    bool  // end marker
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

	maxLine := s.opt.MaxLineBytes
	live := in.file == nil && in.comp == plain
	line := int64(1)
	format := s.opt.Format
	decided := format != Auto
	first := true
	var carry []byte // partial last line, inside the previous chunk's buffer
	var pre []ParseError
	eof := false
	for !eof {
		c := s.getChunk()
		if c == nil {
			return errStop
		}
		// The buffer must hold the carried partial line with room to spare;
		// one grown for a long line goes back to the normal size once that
		// line is gone, so memory stays bounded by the usual sizes.
		want := s.opt.ChunkBytes
		if 2*len(carry) > want {
			want = max(min(2*len(carry), maxLine+1), len(carry))
		}
		if cap(c.buf) < want || cap(c.buf) > 4*want {
			c.buf = make([]byte, want)
		}
		buf := c.buf[:cap(c.buf)]
		n := copy(buf, carry)
		carry = nil
		var skipped int64 // bytes of an overlong line thrown away
		for {
			// Fill the buffer, or up to the end of input. Plain stdin may
			// be a pipe fed line by line (predictions on a live stream):
			// there, whole lines are passed on as soon as a read returns
			// them rather than held back until the buffer is full.
			for n < len(buf) && !eof {
				m, rerr := in.r.Read(buf[n:])
				n += m
				if live && m > 0 && rerr == nil && bytes.IndexByte(buf[n-m:n], '\n') >= 0 {
					break
				}
				if rerr == io.EOF {
					eof = true
				} else if rerr != nil {
					select {
					case <-s.done:
						s.free <- c
						return errStop
					default:
					}
					s.free <- c
					return in.readErr(rerr)
				}
			}
			if first && n > 0 {
				first = false
				if hasPrefix(buf[:n], utf8BOM) {
					copy(buf, buf[3:n])
					n -= 3
					skipped += 3
				}
			}
			if eof || bytes.IndexByte(buf[:n], '\n') >= 0 {
				break
			}
			// A line longer than the buffer: grow, or give up on it.
			if len(buf) <= maxLine {
				size := min(2*len(buf), maxLine+1)
				nb := make([]byte, size)
				copy(nb, buf[:n])
				c.buf, buf = nb, nb
				continue
			}
			// The line has more than maxLine bytes: report it and discard
			// it up to its newline without keeping it.
			pre = append(pre, ParseError{File: in.name, Line: line,
				Msg: fmt.Sprintf("line longer than %d bytes", maxLine)})
			line++
			var rest int
			skipped, rest, eof, err = s.discardLine(in, buf, n, skipped)
			if err != nil {
				s.free <- c
				return err
			}
			n = rest
		}
		data := buf[:n]
		if !eof {
			if i := bytes.LastIndexByte(data, '\n'); i >= 0 {
				carry = data[i+1:]
				data = data[:i+1]
			} else {
				carry, data = data, data[:0]
			}
		}
		c.data = data
		c.file = in.name
		c.line = line
		c.lines = int64(bytes.Count(data, []byte{'\n'}))
		if len(data) > 0 && data[len(data)-1] != '\n' {
			c.lines++
		}
		line += c.lines
		c.lines += int64(len(pre)) // the discarded lines
		c.bytes = int64(len(data)) + skipped
		c.pre = append(c.pre[:0], pre...)
		pre = pre[:0]
		if !decided {
			format, decided = sniffFormat(data)
		}
		c.format = format
		if len(data) == 0 && len(c.pre) == 0 && c.bytes == 0 {
			s.free <- c
			continue
		}
		if !s.send(c, seq, true) {
			return errStop
		}
	}
	return nil
}

// discardLine reads on past an overlong line whose first n bytes are in
// buf, up to and including its newline. It leaves what follows the newline
// at the start of buf and returns its length.
func (s *textSource) discardLine(in *input, buf []byte, n int, skipped int64) (int64, int, bool, error) {
	for {
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			skipped += int64(i + 1)
			return skipped, copy(buf, buf[i+1:n]), false, nil
		}
		skipped += int64(n)
		m, err := in.r.Read(buf)
		n = m
		if err == io.EOF {
			if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
				skipped += int64(i + 1)
				return skipped, copy(buf, buf[i+1:n]), true, nil
			}
			return skipped + int64(n), 0, true, nil
		}
		if err != nil {
			return skipped, 0, false, in.readErr(err)
		}
		select {
		case <-s.done:
			return skipped, 0, false, errStop
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
			batch.addError(c.file, line, err.Error())
		}
		line++
	}
}
