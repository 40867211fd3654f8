package ddbmem

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodbstreams"
)

// TestServeClientPipe checks that Server.Client and Server.StreamsClient
// reach their server in process, that a client of the URL reaches it on
// TCP, and that after Close the old client reaches a new server on the
// same address on TCP.
func TestServeClientPipe(t *testing.T) {
	ctx := context.Background()
	s, err := Serve(New(), "")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	networks := func() map[string]int {
		s.mu.Lock()
		defer s.mu.Unlock()
		n := map[string]int{}
		for c := range s.conns {
			n[c.LocalAddr().Network()]++
		}
		return n
	}
	if _, err := s.Client().ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.StreamsClient().ListStreams(ctx, &dynamodbstreams.ListStreamsInput{}); err != nil {
		t.Fatal(err)
	}
	if got := networks(); got[pipeNetwork] != 2 || got["tcp"] != 0 {
		t.Fatalf("connections by network after Client and StreamsClient = %v, want 2 %s", got, pipeNetwork)
	}
	if _, err := NewEndpointClient(s.URL()).ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatal(err)
	}
	if got := networks(); got[pipeNetwork] != 2 || got["tcp"] != 1 {
		t.Fatalf("connections by network after a client of the URL = %v, want 2 %s and 1 tcp", got, pipeNetwork)
	}
	c := s.Client()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if s.dialPipe() != nil {
		t.Fatal("dialPipe connects after Close")
	}
	if _, err := c.ListTables(ctx, &dynamodb.ListTablesInput{}); err == nil {
		t.Fatal("Client works after Close")
	}
	// A server started again on the same address answers the old
	// client, on TCP.
	s2, err := Serve(New(), s.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer s2.Close()
	if _, err := c.ListTables(ctx, &dynamodb.ListTablesInput{}); err != nil {
		t.Fatalf("the old client against a new server on its address: %v", err)
	}
}

// TestPipeConn checks the in-process connection as a net.Conn: bytes in
// order each way, writes that do not wait for the reader up to the
// buffer's bound and wait beyond it, Close's effect on both ends, and
// deadlines, with busy waiting on and off.
func TestPipeConn(t *testing.T) {
	for _, spin := range []bool{true, false} {
		name := "parked"
		if spin {
			name = "busy"
		}
		t.Run(name, func(t *testing.T) {
			if !spin {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
			}
			t.Run("streams", func(t *testing.T) { testPipeStreams(t) })
			t.Run("close", func(t *testing.T) { testPipeClose(t) })
			t.Run("deadlines", func(t *testing.T) { testPipeDeadlines(t) })
			t.Run("readers", func(t *testing.T) { testPipeReaders(t) })
		})
	}
}

// testPipeStreams sends 8 MB each way at once, in writes of varied
// sizes, and checks that each end reads every byte in order.
func testPipeStreams(t *testing.T) {
	a, b := newPipe()
	defer a.Close()
	defer b.Close()
	const total = 8 << 20
	data := make([]byte, total)
	for i := range data {
		data[i] = byte(i * 7 / 3)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for _, ends := range [][2]*pipeConn{{a, b}, {b, a}} {
		w, r := ends[0], ends[1]
		wg.Add(2)
		go func() {
			defer wg.Done()
			for off, n := 0, 1; off < total; n = n*3%70001 + 1 {
				n = min(n, total-off)
				if m, err := w.Write(data[off : off+n]); err != nil || m != n {
					errs <- errors.Join(err, errors.New("short write"))
					return
				}
				off += n
			}
		}()
		go func() {
			defer wg.Done()
			got := make([]byte, total)
			if _, err := io.ReadFull(r, got); err != nil {
				errs <- err
				return
			}
			if !bytes.Equal(got, data) {
				errs <- errors.New("the bytes read differ from the bytes written")
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// A write up to the bound returns at once; one beyond waits until
	// the reader takes bytes.
	if n, err := a.Write(make([]byte, pipeBufMax)); err != nil || n != pipeBufMax {
		t.Fatalf("a write of the bound: %d, %v", n, err)
	}
	done := make(chan error, 1)
	go func() { _, err := a.Write([]byte("x")); done <- err }()
	select {
	case err := <-done:
		t.Fatalf("a write beyond the bound returned at once (%v)", err)
	case <-time.After(20 * time.Millisecond):
	}
	if _, err := io.ReadFull(b, make([]byte, 1000)); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// testPipeClose checks that the peer of a closed end reads what was
// written before, then io.EOF, and fails to write; that the closed end
// fails to read and write; and that Close wakes a reader and a writer
// that wait.
func testPipeClose(t *testing.T) {
	a, b := newPipe()
	if _, err := a.Write([]byte("last words")); err != nil {
		t.Fatal(err)
	}
	readErr := make(chan error, 1)
	go func() { _, err := a.Read(make([]byte, 1)); readErr <- err }()
	time.Sleep(5 * time.Millisecond) // a parks (or waits busy) in Read
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-readErr; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("a read waiting on the end closed: %v, want net.ErrClosed", err)
	}
	if err := a.Close(); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("a second Close: %v, want net.ErrClosed", err)
	}
	got, err := io.ReadAll(b)
	if err != nil || string(got) != "last words" {
		t.Fatalf("the peer read %q, %v; want the bytes written before Close, then EOF", got, err)
	}
	if _, err := b.Write([]byte("x")); !errors.Is(err, io.ErrClosedPipe) {
		t.Fatalf("a write to a closed peer: %v, want io.ErrClosedPipe", err)
	}
	if _, err := a.Write([]byte("x")); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("a write on the closed end: %v, want net.ErrClosed", err)
	}
	// Close wakes a writer waiting for room.
	c, d := newPipe()
	defer d.Close()
	if _, err := c.Write(make([]byte, pipeBufMax)); err != nil {
		t.Fatal(err)
	}
	writeErr := make(chan error, 1)
	go func() { _, err := c.Write([]byte("x")); writeErr <- err }()
	time.Sleep(5 * time.Millisecond)
	c.Close()
	if err := <-writeErr; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("a write waiting on the end closed: %v, want net.ErrClosed", err)
	}
}

// testPipeDeadlines checks that a read deadline ends a waiting read with
// os.ErrDeadlineExceeded, a deadline in the past at once, that clearing
// it lets reads wait again, and that a write deadline ends a write
// waiting for room.
func testPipeDeadlines(t *testing.T) {
	a, b := newPipe()
	defer a.Close()
	defer b.Close()
	a.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
	start := time.Now()
	if _, err := a.Read(make([]byte, 1)); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a read past its deadline: %v, want os.ErrDeadlineExceeded", err)
	}
	if d := time.Since(start); d < 10*time.Millisecond {
		t.Fatalf("the read ended after %v, before its deadline", d)
	}
	var ne net.Error
	if _, err := a.Read(nil); !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("a read after its deadline: %v, want a timeout", err)
	}
	// A deadline set in the past ends a read that waits.
	readErr := make(chan error, 1)
	a.SetReadDeadline(time.Time{})
	go func() { _, err := a.Read(make([]byte, 1)); readErr <- err }()
	time.Sleep(5 * time.Millisecond)
	a.SetDeadline(aLongTimeAgo)
	if err := <-readErr; !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a read when the deadline moved to the past: %v", err)
	}
	// Cleared, the deadline no longer ends reads.
	a.SetDeadline(time.Time{})
	go func() { _, err := a.Read(make([]byte, 1)); readErr <- err }()
	time.Sleep(5 * time.Millisecond)
	if _, err := b.Write([]byte("y")); err != nil {
		t.Fatal(err)
	}
	if err := <-readErr; err != nil {
		t.Fatalf("a read after the deadline was cleared: %v", err)
	}
	// A write deadline ends a write waiting for room.
	if _, err := a.Write(make([]byte, pipeBufMax)); err != nil {
		t.Fatal(err)
	}
	a.SetWriteDeadline(time.Now().Add(10 * time.Millisecond))
	if _, err := a.Write([]byte("z")); !errors.Is(err, os.ErrDeadlineExceeded) {
		t.Fatalf("a write past its deadline: %v, want os.ErrDeadlineExceeded", err)
	}
}

// TestPipeIdleParks checks that a reader whose waits outlast pipeSpin
// stops waiting busy: after one long wait, the next read parks at once,
// and a short wait makes it patient again (whatever GOMAXPROCS: the
// waits are measured alike when no reader may wait busy).
func TestPipeIdleParks(t *testing.T) {
	a, b := newPipe()
	defer a.Close()
	defer b.Close()
	if !a.in.patient.Load() {
		t.Fatal("a new pipe's reader is not patient")
	}
	go func() {
		time.Sleep(5 * pipeSpin)
		b.Write([]byte("late"))
	}()
	if _, err := io.ReadFull(a, make([]byte, 4)); err != nil {
		t.Fatal(err)
	}
	if a.in.patient.Load() {
		t.Fatal("the reader is patient after a wait of 5×pipeSpin")
	}
	// A wait well under pipeSpin; a busy machine can stretch one, so a
	// few tries.
	for try := 0; !a.in.patient.Load(); try++ {
		if try == 50 {
			t.Fatal("the reader is not patient again after 50 short waits")
		}
		go func() {
			for start := time.Now(); time.Since(start) < pipeSpin/10; {
			}
			b.Write([]byte("soon"))
		}()
		if _, err := io.ReadFull(a, make([]byte, 4)); err != nil {
			t.Fatal(err)
		}
	}
}

// testPipeReaders checks that several readers parked on one end at once
// each get bytes, however the writes come: a write wakes every parked
// reader, not only one.
func testPipeReaders(t *testing.T) {
	a, b := newPipe()
	defer a.Close()
	defer b.Close()
	const readers = 8
	got := make(chan byte, readers)
	for range readers {
		go func() {
			p := make([]byte, 1)
			if _, err := a.Read(p); err != nil {
				t.Error(err)
			}
			got <- p[0]
		}()
	}
	time.Sleep(5 * time.Millisecond) // the readers park
	seen := map[byte]bool{}
	for i := range readers {
		if _, err := b.Write([]byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
		select {
		case c := <-got:
			seen[c] = true
		case <-time.After(5 * time.Second):
			t.Fatalf("a reader still waits after write %d", i)
		}
	}
	if len(seen) != readers {
		t.Fatalf("the readers got %d distinct bytes, want %d", len(seen), readers)
	}
}
