package engine

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/sparseson/sparseson/hashing"
	"github.com/sparseson/sparseson/parser"
	"github.com/sparseson/sparseson/sparse"
)

// Serve is VW's daemon mode: the engine listens on a TCP port, and every
// example line a client sends gets back its prediction line — the line
// Predictions would get, tag included — on the same connection, in order.
// The model is loaded once. Connections are served concurrently, each
// parsing and hashing its own lines with its own hashing.Builder, and all
// examples go through one goroutine that owns the model and calls
// process, the path every example of a file takes: so predictions equal
// those of a TestOnly run byte for byte, and without TestOnly the model
// learns from the labeled lines one at a time, in the order they arrive
// (VW's daemon learns too). The model's goroutine writes each answer into
// memory, never to a socket, so a client that stops reading stalls only
// itself.
//
// Every client gets a line "error: …" rather than a silent close or a
// reset: past NumChildren connections (the connection is then closed),
// for a line over MaxLine bytes (the line is read to its end, never held
// whole, and dropped; the connection goes on), for a malformed line (the
// connection goes on), and after IdleTimeout without a byte from the
// client (the connection is closed, so idle sockets cannot hold the
// NumChildren slots for ever; a client that does not read its answers
// for as long is dropped too). It listens on Host, the loopback interface
// unless told otherwise. Canceling the context stops it; a model being
// trained is then saved to Final.

// request is one parsed example on its way to the model's goroutine.
type request struct {
	ex    sparse.Example
	preds *predWriter  // writes into out
	out   bytes.Buffer // the answer, copied to the connection by its handler
	done  chan struct{}
}

// Serve answers example lines over TCP until ctx is canceled (or
// accepting fails), then saves the model to Final (unless TestOnly) and
// returns nil.
func (e *Engine) Serve(ctx context.Context) error {
	c, n := e.cfg, e.cfg.name
	if e.shards != nil {
		// A served line is answered at once: there is no batch to share
		// among the shards.
		return setting(fmt.Errorf("%s does not provide %s %d", n("serve"), n("Shards"), c.shardCount()))
	}
	if err := e.checkOutputs("", nil); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(c.Host, strconv.Itoa(c.Port)))
	if err != nil {
		return fmt.Errorf("%s: %w", n("serve"), err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	for _, f := range []struct{ path, text string }{{c.PidFile, strconv.Itoa(os.Getpid())}, {c.PortFile, strconv.Itoa(port)}} {
		if f.path != "" {
			if err := writeSmallOutput(f.path, f.text+"\n"); err != nil {
				return fmt.Errorf("%s: %w", n("serve"), err)
			}
		}
	}
	e.rep.holdoutOn = false
	e.watchDivergence()
	if !c.Quiet {
		mode := "learning from labeled lines"
		if c.TestOnly {
			mode = "predicting only (" + n("TestOnly") + ")"
		}
		fmt.Fprintf(c.Stderr, "daemon listening on %s, %s, at most %d connections\n", ln.Addr(), mode, c.NumChildren)
		e.rep.header()
	}

	reqs := make(chan *request)
	owner := make(chan struct{})
	go func() {
		defer close(owner)
		for r := range reqs {
			e.process(&r.ex, false, nil, r.preds)
			r.done <- struct{}{}
		}
	}()
	err = e.acceptLoop(ctx, ln, reqs)
	close(reqs)
	<-owner
	if err != nil {
		return err
	}
	if c.Final != "" && !c.TestOnly {
		if err := e.Save(c.Final); err != nil {
			return err
		}
	}
	if e.seen > 0 {
		e.rep.summary(e.loss, 1, e.skipped)
	}
	return nil
}

// acceptLoop serves connections until ctx is canceled (or accepting
// fails), then closes them all and waits for their handlers.
func (e *Engine) acceptLoop(ctx context.Context, ln net.Listener, reqs chan<- *request) error {
	c := e.cfg
	var (
		handlers sync.WaitGroup
		mu       sync.Mutex
		conns    = map[net.Conn]bool{}
		closed   bool
		slots    = make(chan struct{}, c.NumChildren)
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
	defer handlers.Wait()
	defer shutdown()
	stop := context.AfterFunc(ctx, func() {
		close(stopped)
		shutdown()
	})
	defer stop()
	for {
		conn, err := ln.Accept()
		if err != nil {
			select {
			case <-stopped:
				return nil
			default:
			}
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				continue
			}
			return fmt.Errorf("%s: %w", c.name("serve"), err)
		}
		select {
		case slots <- struct{}{}:
		default:
			go refuse(conn, fmt.Sprintf("error: too many connections (%s %d); try again later\n", c.name("NumChildren"), c.NumChildren))
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
			e.handle(idleConn{conn, c.IdleTimeout}, reqs)
			mu.Lock()
			delete(conns, conn)
			mu.Unlock()
			conn.Close()
			<-slots
		}()
	}
}

// refuse tells a client over NumChildren why it is not served and
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
func (e *Engine) handle(conn idleConn, reqs chan<- *request) {
	max := e.cfg.MaxLine
	bw := bufio.NewWriterSize(conn, 64<<10)
	defer bw.Flush()
	b, err := hashing.NewBuilder(e.hash)
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
			fmt.Fprintf(bw, "error: line longer than %d bytes (%s); skipped\n", max, e.cfg.name("MaxLine"))
		case err == nil || (err == io.EOF && len(line) > 0):
			if perr := e.parseLine(line, b, &req.ex); perr == nil {
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
			fmt.Fprintf(bw, "error: nothing received for %v s (%s); closing the connection\n", e.cfg.IdleTimeout.Seconds(), e.cfg.name("IdleTimeout"))
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

// ParseLine parses one line of text as Format says (auto: a line with a
// '|' is VW text, else LIBSVM) into ex, hashed as the model hashes. It is
// not safe for concurrent use (Serve's connections have builders of their
// own).
func (e *Engine) ParseLine(line []byte, ex *sparse.Example) error {
	if e.builder == nil {
		b, err := hashing.NewBuilder(e.hash)
		if err != nil {
			return err
		}
		e.builder = b
	}
	return e.parseLine(line, e.builder, ex)
}

// parseLine parses one line as the input format says (auto: a line with a
// '|' is VW text), checking the class of a multiclass model.
func (e *Engine) parseLine(line []byte, b *hashing.Builder, ex *sparse.Example) error {
	parse := parser.ParseVWLine
	if e.cfg.Format == "libsvm" || (e.cfg.Format == "auto" && bytes.IndexByte(line, '|') < 0) {
		parse = parser.ParseLIBSVMLine
	}
	if err := parse(line, b, ex); err != nil {
		return err
	}
	if e.classes > 0 {
		return parser.CheckClass(ex, e.classes)
	}
	return nil
}
