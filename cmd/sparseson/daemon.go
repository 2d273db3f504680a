package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"sync"
	"syscall"
	"time"

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
// learns too). The model's goroutine writes each answer into memory, never
// to a socket, so a client that stops reading stalls only itself.
//
// Every client gets a line "error: …" rather than a silent close or a
// reset: past --num_children connections (the connection is then closed),
// for a line over --daemon_max_line bytes (the line is read to its end,
// never held whole, and dropped; the connection goes on), for a malformed
// line (the connection goes on), and after --daemon_idle_timeout seconds
// without a byte from the client (the connection is closed, so idle
// sockets cannot hold the --num_children slots for ever; a client that
// does not read its answers for as long is dropped too). It listens on
// --host, the loopback interface unless told otherwise. SIGINT or SIGTERM
// stops the daemon; a model being trained is then saved to -f, and the
// exit status is 128 + the signal's number, as in batch mode.

// request is one parsed example on its way to the model's goroutine.
type request struct {
	ex    sparse.Example
	preds *predWriter  // writes into out
	out   bytes.Buffer // the answer, copied to the connection by its handler
	done  chan struct{}
}

func (d *driver) serve() error {
	c := d.cfg
	sigs, stopSignals := d.daemonSignals()
	defer stopSignals()
	if err := checkOutputs(c, ""); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(c.vw.host, strconv.Itoa(c.vw.port)))
	if err != nil {
		return fmt.Errorf("--daemon: %w", err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	for _, f := range []struct{ path, text string }{{c.vw.pidFile, strconv.Itoa(os.Getpid())}, {c.vw.portFile, strconv.Itoa(port)}} {
		if f.path != "" {
			if err := writeSmallOutput(f.path, f.text+"\n"); err != nil {
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
		fmt.Fprintf(d.stderr, "daemon listening on %s, %s, at most %d connections\n", ln.Addr(), mode, c.vw.numChildren)
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
	sig, err := d.acceptLoop(ln, sigs, stopSignals, reqs)
	close(reqs)
	<-owner
	if err != nil {
		return err
	}
	saved := ""
	if c.final != "" && !c.testOnly {
		if err := model.Save(c.final, d.modelOptions(), d.learner.Save); err != nil {
			return err
		}
		saved = c.final
	}
	if d.seen > 0 {
		d.rep.summary(d.loss, 1, d.skipped)
	}
	return &interruptError{sig: sig, examples: d.seen, saved: saved}
}

// daemonSignals returns the channel of the signal that stops the daemon:
// SIGINT or SIGTERM, or, when the driver has a context (tests), SIGINT
// once it is done; and the function that stops the watch, which
// acceptLoop calls when the first signal has come, so that a second one
// has its default action (the process stops at once), as in batch mode.
func (d *driver) daemonSignals() (<-chan os.Signal, func()) {
	ch := make(chan os.Signal, 1)
	if d.ctx != nil {
		stop := context.AfterFunc(d.ctx, func() { ch <- os.Interrupt })
		return ch, func() { stop() }
	}
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	return ch, func() { signal.Stop(ch) }
}

// acceptLoop serves connections until a signal comes (or accepting
// fails), then closes them all, waits for their handlers and returns the
// signal.
func (d *driver) acceptLoop(ln net.Listener, sigs <-chan os.Signal, stopSignals func(), reqs chan<- *request) (os.Signal, error) {
	c := d.cfg
	var (
		handlers sync.WaitGroup
		mu       sync.Mutex
		conns    = map[net.Conn]bool{}
		closed   bool
		slots    = make(chan struct{}, c.vw.numChildren)
		sig      os.Signal
		stopped  = make(chan struct{})
	)
	shutdown := func() {
		ln.Close()
		mu.Lock()
		closed = true
		for conn := range conns {
			conn.Close()
		}
		mu.Unlock()
	}
	quit := make(chan struct{})
	defer handlers.Wait()
	defer shutdown()
	defer close(quit)
	go func() {
		select {
		case sig = <-sigs:
			stopSignals() // a second signal has its default action
			close(stopped)
			shutdown()
		case <-quit:
		}
	}()
	for {
		conn, err := ln.Accept()
		if err != nil {
			select {
			case <-stopped:
				return sig, nil
			default:
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return nil, fmt.Errorf("--daemon: %w", err)
		}
		select {
		case slots <- struct{}{}:
		default:
			go refuse(conn, fmt.Sprintf("error: too many connections (--num_children %d); try again later\n", c.vw.numChildren))
			continue
		}
		mu.Lock()
		if closed {
			conn.Close()
		}
		conns[conn] = true
		mu.Unlock()
		handlers.Add(1)
		go func() {
			defer handlers.Done()
			d.handle(idleConn{conn, c.vw.idleTimeout()}, reqs)
			mu.Lock()
			delete(conns, conn)
			mu.Unlock()
			conn.Close()
			<-slots
		}()
	}
}

// refuse tells a client over --num_children why it is not served and
// closes its connection. It reads and drops what the client sent for a
// moment first: closing a socket with unread input resets it, and a
// reset may discard the error line before the client has read it.
func refuse(conn net.Conn, msg string) {
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Second))
	if _, err := io.WriteString(conn, msg); err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		tc.CloseWrite()
	}
	io.Copy(io.Discard, io.LimitReader(conn, 1<<20))
}

// idleConn gives every read and every write its own deadline, idle from
// its start (0: none), so that a client may take as long as it likes over
// a long line or many answers, but not sit on its connection doing
// nothing.
type idleConn struct {
	net.Conn
	idle time.Duration
}

func (c idleConn) Read(p []byte) (int, error) {
	if c.idle > 0 {
		c.Conn.SetReadDeadline(time.Now().Add(c.idle))
	}
	return c.Conn.Read(p)
}

func (c idleConn) Write(p []byte) (int, error) {
	if c.idle > 0 {
		c.Conn.SetWriteDeadline(time.Now().Add(c.idle))
	}
	return c.Conn.Write(p)
}

// handle serves one connection: a prediction line for every example line.
func (d *driver) handle(conn idleConn, reqs chan<- *request) {
	max := d.cfg.vw.maxLine
	bw := bufio.NewWriterSize(conn, 64<<10)
	defer bw.Flush()
	b, err := hashing.NewBuilder(d.hash)
	if err != nil {
		fmt.Fprintf(bw, "error: %v\n", err)
		return
	}
	br := bufio.NewReaderSize(conn, 64<<10)
	req := &request{done: make(chan struct{})}
	req.preds = &predWriter{w: bufio.NewWriter(&req.out)}
	var long []byte
	for {
		line, tooLong, err := readLine(br, max, &long)
		switch {
		case tooLong:
			fmt.Fprintf(bw, "error: line longer than %d bytes (--daemon_max_line); skipped\n", max)
		case err == nil || (err == io.EOF && len(line) > 0):
			if perr := d.parseLine(line, b, &req.ex); perr == nil {
				reqs <- req
				<-req.done
				req.preds.w.Flush()
				bw.Write(req.out.Bytes())
				req.out.Reset()
			} else if perr != parser.ErrBlankLine {
				fmt.Fprintf(bw, "error: %v\n", perr)
			}
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			fmt.Fprintf(bw, "error: nothing received for %v s (--daemon_idle_timeout); closing the connection\n", d.cfg.vw.idleSecs)
		}
		if err != nil {
			return // EOF, a closed connection or the idle timeout
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
// input, what is left and io.EOF (or the read error). A line longer than
// max is read to its end, holding at most max bytes of it, and reported
// as tooLong.
func readLine(br *bufio.Reader, max int, long *[]byte) (line []byte, tooLong bool, err error) {
	line, err = br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		*long = append((*long)[:0], line...)
		for err == bufio.ErrBufferFull && len(*long) <= max {
			line, err = br.ReadSlice('\n')
			*long = append(*long, line...)
		}
		if err == bufio.ErrBufferFull {
			for err == bufio.ErrBufferFull {
				_, err = br.ReadSlice('\n')
			}
			return nil, true, err
		}
		line = *long
	}
	if len(line) > 0 && line[len(line)-1] == '\n' {
		line = line[:len(line)-1]
	}
	if len(line) > max {
		return nil, true, err
	}
	return line, false, err
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
