package model

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"os"
)

// source is a model file streamed for decoding after its checksum was
// verified. It checksums what it reads again, so that the trailer can
// tell whether the bytes decoded are those verified.
type source struct {
	f    *os.File
	br   *bufio.Reader
	pos  int64 // bytes read from the file
	size int64
	crc  uint32
	want uint32
	done bool
	big  []byte // reads longer than br's buffer (a long string)
}

// stream verifies f (size bytes) in a first pass and returns its options
// and a Reader of its body positioned after them.
func stream(f *os.File, size int64) (Options, *Reader, error) {
	var head [headSize]byte
	var tail [tailSize]byte
	h := head[:min(size, headSize)]
	t := tail[:min(size, tailSize)]
	if _, err := f.ReadAt(h, 0); err != nil {
		return nil, nil, err
	}
	if _, err := f.ReadAt(t, size-int64(len(t))); err != nil {
		return nil, nil, err
	}
	sum := func() (uint32, error) {
		crc := crc32.New(castag)
		if _, err := io.Copy(crc, io.NewSectionReader(f, 0, size-4)); err != nil {
			return 0, err
		}
		return crc.Sum32(), nil
	}
	if err := verify(size, h, t, sum); err != nil {
		return nil, nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, nil, err
	}
	src := &source{f: f, br: bufio.NewReaderSize(f, 1<<16), size: size, want: binary.LittleEndian.Uint32(t[len(trailer):])}
	if _, err := src.read(0, int(headSize)); err != nil {
		return nil, nil, err
	}
	r := &Reader{src: src, pos: headSize, end: size - tailSize, top: true}
	opts, err := header(r)
	if err != nil {
		return nil, nil, err
	}
	return opts, r, nil
}

// read returns the n bytes at offset pos, valid until the next read.
// Bytes before pos that no Reader read (a section left unfinished) are
// skipped, but checksummed all the same.
func (s *source) read(pos int64, n int) ([]byte, error) {
	if s.done {
		return nil, fmt.Errorf("%w: read after the end", ErrCorrupt)
	}
	if pos < s.pos {
		// A section read after the Reader it came from read on: a
		// decoder's bug, not the file's.
		return nil, fmt.Errorf("model: read at %d after %d was read", pos, s.pos)
	}
	for s.pos < pos {
		if _, err := s.next(int(min(pos-s.pos, int64(s.br.Size())))); err != nil {
			return nil, err
		}
	}
	return s.next(n)
}

func (s *source) next(n int) ([]byte, error) {
	var b []byte
	var err error
	if n <= s.br.Size() {
		if b, err = s.br.Peek(n); err == nil {
			_, err = s.br.Discard(n)
		}
	} else {
		if cap(s.big) < n {
			s.big = make([]byte, n)
		}
		b = s.big[:n]
		_, err = io.ReadFull(s.br, b)
	}
	if err != nil {
		s.close()
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, fmt.Errorf("%w: the file was truncated while it was read", ErrCorrupt)
		}
		return nil, fmt.Errorf("read model: %w", err)
	}
	s.crc = crc32.Update(s.crc, castag, b)
	s.pos += int64(n)
	return b, nil
}

// finish reads the trailer once the body ends at pos, checks that the
// file read is the file verified, and closes it.
func (s *source) finish(pos int64) error {
	if s.done {
		return nil
	}
	if _, err := s.read(pos, len(trailer)); err != nil {
		return err
	}
	got := s.crc // the CRC field itself is not checksummed
	b, err := s.read(s.pos, 4)
	if err != nil {
		return err
	}
	stored := binary.LittleEndian.Uint32(b)
	s.close()
	if got != s.want || stored != s.want || s.pos != s.size {
		return fmt.Errorf("%w: the file changed while it was read", ErrCorrupt)
	}
	return nil
}

func (s *source) close() {
	s.done = true
	s.big = nil
	s.f.Close()
}
