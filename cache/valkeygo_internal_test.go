package cache

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/tablekit/tablekit/internal/glidex"
	"github.com/valkey-io/valkey-go"
)

func TestKeySlot(t *testing.T) {
	for _, tc := range []struct {
		key  string
		want uint16
	}{
		{"123456789", 12739}, // the CRC16/XMODEM check value 0x31C3
		{"foo", 12182},
		{"{user1000}.following", keySlot("user1000")},
		{"{user1000}.followers", keySlot("user1000")},
		{"foo{}{bar}", keySlot("foo{}{bar}")}, // empty tag: the whole key
		{"{}", keySlot("{}")},
	} {
		if got := keySlot(tc.key); got != tc.want {
			t.Errorf("keySlot(%q) = %d, want %d", tc.key, got, tc.want)
		}
	}
	if keySlot("{a}x") != keySlot("{a}y") || keySlot("ax") == keySlot("ay") && keySlot("ax") == keySlot("az") {
		t.Error("hash tags not honoured")
	}
}

func TestClassifyValkeyGo(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want glidex.Kind
	}{
		{"nil", nil, glidex.OK},
		{"dial", fmt.Errorf("%w: %w", errDial, syscall.ECONNREFUSED), glidex.Connection},
		{"closing", valkey.ErrClosing, glidex.Connection},
		{"eof", io.EOF, glidex.Connection},
		{"reset", &net.OpError{Op: "read", Err: syscall.ECONNRESET}, glidex.Connection},
		{"deadline", context.DeadlineExceeded, glidex.Timeout},
		{"cancelled", fmt.Errorf("x: %w", context.Canceled), glidex.Timeout},
		{"crossslot", serverError{errCrossSlot}, glidex.Server},
		{"other", errors.New("WRONGTYPE Operation against a key holding the wrong kind of value"), glidex.Server},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := classify(tc.err); got != tc.want {
				t.Fatalf("classify(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

func TestDeadlines(t *testing.T) {
	d := newDeadlines(40 * time.Millisecond)
	start := time.Now()
	ctxs := make([]context.Context, 100)
	for i := range ctxs {
		ctxs[i] = d.ctx(context.Background())
	}
	for i, ctx := range ctxs {
		dl, ok := ctx.Deadline()
		if !ok || dl.Before(start.Add(40*time.Millisecond)) || dl.After(time.Now().Add(40*time.Millisecond+d.gran)) {
			t.Fatalf("ctx %d: deadline %v after start %v", i, dl.Sub(start), ok)
		}
		if ctx.Err() != nil {
			t.Fatalf("ctx %d ended early", i)
		}
	}
	for i, ctx := range ctxs {
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
			t.Fatalf("ctx %d never ended", i)
		}
		if !errors.Is(ctx.Err(), context.DeadlineExceeded) {
			t.Fatalf("ctx %d: Err %v", i, ctx.Err())
		}
	}
	if d := time.Since(start); d < 40*time.Millisecond {
		t.Fatalf("ended after %v", d)
	}
	type key struct{}
	if v := d.ctx(context.WithValue(context.Background(), key{}, 7)).Value(key{}); v != 7 {
		t.Fatalf("Value = %v", v)
	}
}
