package cachestore

import (
	"hash/maphash"
	"reflect"
	"sync/atomic"
	"time"
)

// decodeMemo remembers the last values a Store decoded, by the exact
// bytes they were decoded from: a hit whose cached bytes are the ones
// decoded last time in their slot returns the same value again instead
// of decoding it. The bytes are compared whole, so the answer is always
// the decoding of what the server returned; only the work is saved.
//
// It is used only for a T that a copy cannot share anything mutable
// with (flat, below): the value handed out is a copy of the one kept.
// Values longer than memoMaxBytes are not kept, which bounds the memory
// at memoSlots entries of at most that size.
type decodeMemo[T any] struct {
	seed  maphash.Seed
	slots [memoSlots]atomic.Pointer[memoEntry[T]]
}

const (
	memoSlots    = 256
	memoMaxBytes = 8 << 10
)

type memoEntry[T any] struct {
	raw string
	val T
}

func newDecodeMemo[T any]() *decodeMemo[T] {
	if !flat(reflect.TypeFor[T]()) {
		return nil
	}
	return &decodeMemo[T]{seed: maphash.MakeSeed()}
}

func (m *decodeMemo[T]) slot(raw string) *atomic.Pointer[memoEntry[T]] {
	return &m.slots[maphash.String(m.seed, raw)%memoSlots]
}

// get returns the value decoded from raw, if the memo has it.
func (m *decodeMemo[T]) get(raw string) (T, bool) {
	if e := m.slot(raw).Load(); e != nil && e.raw == raw {
		return e.val, true
	}
	var zero T
	return zero, false
}

// put remembers that raw decodes to v.
func (m *decodeMemo[T]) put(raw string, v T) {
	if len(raw) <= memoMaxBytes {
		m.slot(raw).Store(&memoEntry[T]{raw: raw, val: v})
	}
}

var timeType = reflect.TypeFor[time.Time]()

// flat reports whether a copy of a t shares nothing a holder could
// change: no pointer, slice, map, channel, func or interface, at any
// depth. Strings are immutable, and a time.Time's *Location is never
// changed once made.
func flat(t reflect.Type) bool {
	if t == timeType {
		return true
	}
	switch t.Kind() {
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr,
		reflect.Float32, reflect.Float64, reflect.Complex64, reflect.Complex128, reflect.String:
		return true
	case reflect.Array:
		return flat(t.Elem())
	case reflect.Struct:
		for i := range t.NumField() {
			if !flat(t.Field(i).Type) {
				return false
			}
		}
		return true
	}
	return false
}
