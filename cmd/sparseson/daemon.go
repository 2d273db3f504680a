package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"

	"github.com/sparseson/sparseson/hashing"
	"github.com/sparseson/sparseson/model"
	"github.com/sparseson/sparseson/parser"
	"github.com/sparseson/sparseson/sparse"
)

// --daemon is VW's serving mode: sparseson listens on a TCP port, and every
// example line a client sends gets back its prediction line — the line -p
// would write, tag included — on the same connection, in order. The model
// is loaded once. Connections are served concurrently, each parsing and
// hashing its own lines with its own hashing.Builder, and all examples go
// through one goroutine that owns the model and calls the driver's
// process, the path every example of a file takes: so predictions equal
// those of -t -p byte for byte, and without -t the model learns from the
// labeled lines one at a time, in the order they arrive (VW's daemon
// learns too). At most --num_children connections are served at once and
// a line may have at most --daemon_max_line bytes; past either the client
// gets a line "error: …" (and, for a long line, the connection closes). A
// malformed line gets "error: …" and the connection goes on. SIGINT or
// SIGTERM stops the daemon; a model being trained is then saved to -f.

// request is one parsed example on its way to the model's goroutine.
type request struct {
	ex    sparse.Example
	preds *predWriter // the connection's output
	done  chan struct{}
}

func (d *driver) serve() error {
	c := d.cfg
	ctx := d.ctx
	if ctx == nil {
		var stop context.CancelFunc
		ctx, stop = signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
	}
	if err := checkOutputs(c, ""); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", ":"+strconv.Itoa(c.vw.port))
	if err != nil {
		return fmt.Errorf("--daemon: %w", err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	for _, f := range []struct{ path, text string }{{c.vw.pidFile, strconv.Itoa(os.Getpid())}, {c.vw.portFile, strconv.Itoa(port)}} {
		if f.path != "" {
			if err := os.WriteFile(f.path, []byte(f.text+"\n"), 0o644); err != nil {
				return fmt.Errorf("--daemon: %w", err)
			}
		}
	}
	add, factor, _ := c.progressSchedule()
	d.rep = newReporter(d.stderr, c.quiet, add, factor, false)
	d.rep.multiclass, d.rep.logLossOn = d.classes > 0, d.probs != nil
	d.watchDivergence()
	if !c.quiet {
		mode := "learning from labeled lines"
		if c.testOnly {
			mode = "predicting only (-t)"
		}
		fmt.Fprintf(d.stderr, "daemon listening on port %d, %s, at most %d connections\n", port, mode, c.vw.numChildren)
		d.rep.header()
	}

	reqs := make(chan *request)
	owner := make(chan struct{})
	go func() {
		defer close(owner)
		for r := range reqs {
			d.process(&r.ex, false, nil, r.preds)
			r.done <- struct{}{}
		}
	}()

	var (
		handlers sync.WaitGroup
		mu       sync.Mutex
		conns    = map[net.Conn]bool{}
		slots    = make(chan struct{}, c.vw.numChildren)
	)
	go func() {
		<-ctx.Done()
		ln.Close()
		mu.Lock()
		for conn := range conns {
			conn.Close()
		}
		mu.Unlock()
	}()
	for {
		conn, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return fmt.Errorf("--daemon: %w", err)
		}
		select {
		case slots <- struct{}{}:
		default:
			fmt.Fprintf(conn, "error: too many connections (--num_children %d); try again later\n", c.vw.numChildren)
			conn.Close()
			continue
		}
		mu.Lock()
		conns[conn] = true
		mu.Unlock()
		handlers.Add(1)
		go func() {
			defer handlers.Done()
			d.handle(conn, reqs)
			mu.Lock()
			delete(conns, conn)
			mu.Unlock()
			conn.Close()
			<-slots
		}()
	}
	handlers.Wait()
	close(reqs)
	<-owner
	if c.final != "" && !c.testOnly {
		if err := model.Save(c.final, d.modelOptions(), d.learner.Save); err != nil {
			return err
		}
	}
	if d.seen > 0 {
		d.rep.summary(d.loss, 1, d.skipped)
	}
	return nil
}

// errLineTooLong ends a connection whose line exceeds --daemon_max_line.
var errLineTooLong = errors.New("line too long")

// handle serves one connection: a prediction line for every example line.
func (d *driver) handle(conn net.Conn, reqs chan<- *request) {
	max := d.cfg.vw.maxLine
	b, err := hashing.NewBuilder(d.hash)
	if err != nil {
		fmt.Fprintf(conn, "error: %v\n", err)
		return
	}
	br := bufio.NewReaderSize(conn, 64<<10)
	bw := bufio.NewWriterSize(conn, 64<<10)
	defer bw.Flush()
	req := &request{preds: &predWriter{w: bw}, done: make(chan struct{})}
	var long []byte
	for {
		line, err := readLine(br, max, &long)
		if err == errLineTooLong {
			fmt.Fprintf(bw, "error: line longer than %d bytes (--daemon_max_line); closing the connection\n", max)
			return
		}
		if len(line) > 0 || err == nil {
			if perr := d.parseLine(line, b, &req.ex); perr == nil {
				reqs <- req
				<-req.done
			} else if perr != parser.ErrBlankLine {
				fmt.Fprintf(bw, "error: %v\n", perr)
			}
		}
		if err != nil {
			return // EOF or a closed connection
		}
		if br.Buffered() == 0 {
			// Nothing more pipelined: answer now.
			if bw.Flush() != nil {
				return
			}
		}
	}
}

// readLine returns the next line without its newline; at the end of the
// input, what is left and io.EOF (or the read error).
func readLine(br *bufio.Reader, max int, long *[]byte) ([]byte, error) {
	line, err := br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		*long = append((*long)[:0], line...)
		for err == bufio.ErrBufferFull {
			if len(*long) > max {
				return nil, errLineTooLong
			}
			line, err = br.ReadSlice('\n')
			*long = append(*long, line...)
		}
		line = *long
	}
	if len(line) > 0 && line[len(line)-1] == '\n' {
		line = line[:len(line)-1]
	}
	if len(line) > max {
		return nil, errLineTooLong
	}
	return line, err
}

// parseLine parses one line as the input format says (auto: a line with a
// '|' is VW text), checking the class of a multiclass model.
func (d *driver) parseLine(line []byte, b *hashing.Builder, ex *sparse.Example) error {
	parse := parser.ParseVWLine
	if d.cfg.format == "libsvm" || (d.cfg.format == "auto" && bytes.IndexByte(line, '|') < 0) {
		parse = parser.ParseLIBSVMLine
	}
	if err := parse(line, b, ex); err != nil {
		return err
	}
	if d.classes > 0 {
		return parser.CheckClass(ex, d.classes)
	}
	return nil
}
