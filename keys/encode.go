package keys

import (
	"fmt"
	"strings"
	"time"
)

// Delimiter separates the segments of a key; Escape starts an escape
// sequence in a string value.
const (
	Delimiter = '#'
	Escape    = '%'
)

// EscapedLen returns the length of s once escaped by [AppendEscaped].
func EscapedLen(s string) int {
	n := len(s)
	for i := 0; i < len(s); i++ {
		if s[i] == Delimiter || s[i] == Escape {
			n += 2
		}
	}
	return n
}

// AppendEscaped appends s to dst with '#' written as "%23" and '%' as
// "%25". Every other byte is copied unchanged, so a value without '#' and
// '%' appears exactly as given (case included), and the escaped form never
// contains the delimiter. [Unescape] reverses it.
func AppendEscaped(dst []byte, s string) []byte {
	for {
		i := strings.IndexAny(s, "#%")
		if i < 0 {
			return append(dst, s...)
		}
		dst = append(dst, s[:i]...)
		if s[i] == Delimiter {
			dst = append(dst, "%23"...)
		} else {
			dst = append(dst, "%25"...)
		}
		s = s[i+1:]
	}
}

// Unescape reverses [AppendEscaped]. It returns s itself, without
// allocating, when s holds no '%'. It returns an error wrapping
// [ErrMalformed] when s contains '#' or an escape sequence other than
// "%23" and "%25" (so every value has exactly one escaped form).
func Unescape(s string) (string, error) {
	if strings.IndexByte(s, Delimiter) >= 0 {
		return "", fmt.Errorf("%w: unescaped %q in value", ErrMalformed, Delimiter)
	}
	i := strings.IndexByte(s, Escape)
	if i < 0 {
		return s, nil
	}
	b := make([]byte, 0, len(s))
	for i >= 0 {
		b = append(b, s[:i]...)
		if len(s) < i+3 || s[i+1] != '2' || (s[i+2] != '3' && s[i+2] != '5') {
			return "", fmt.Errorf("%w: bad escape sequence", ErrMalformed)
		}
		if s[i+2] == '3' {
			b = append(b, Delimiter)
		} else {
			b = append(b, Escape)
		}
		s = s[i+3:]
		i = strings.IndexByte(s, Escape)
	}
	return string(append(b, s...)), nil
}

var pow10 = [20]uint64{
	1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9,
	1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19,
}

// Widest widths: every value of the type fits.
const (
	MaxIntWidth  = 19 // int64
	MaxUintWidth = 20 // uint64
)

// AppendUint appends v as exactly width decimal digits, zero-padded, so
// that the byte order of two encodings is their numeric order. width must
// be 1..20. A value of more than width digits is an error wrapping
// [ErrOverflow].
func AppendUint(dst []byte, v uint64, width int) ([]byte, error) {
	if width < 1 || width > MaxUintWidth {
		return dst, fmt.Errorf("%w: width %d not in 1..%d", ErrArgs, width, MaxUintWidth)
	}
	if width < MaxUintWidth && v >= pow10[width] {
		return dst, fmt.Errorf("%w: %d has more than %d digits", ErrOverflow, v, width)
	}
	return appendDigits(dst, v, width), nil
}

func appendDigits(dst []byte, v uint64, width int) []byte {
	var buf [MaxUintWidth]byte
	for i := width - 1; i >= 0; i-- {
		buf[i] = byte('0' + v%10)
		v /= 10
	}
	return append(dst, buf[:width]...)
}

// AppendInt appends v in the fixed-width, sign-offset encoding: a
// non-negative v is written as by [AppendUint]; a negative v as '-'
// followed by the width digits of 10^width + v. '-' sorts before every
// digit and the offset reverses the order of magnitudes, so the byte order
// of two encodings of the same width is their numeric order:
//
//	width 3:  -999 -> "-001", -1 -> "-999", 0 -> "000", 42 -> "042"
//
// width must be 1..19. A value outside -10^width .. 10^width-1 is an error
// wrapping [ErrOverflow].
func AppendInt(dst []byte, v int64, width int) ([]byte, error) {
	if width < 1 || width > MaxIntWidth {
		return dst, fmt.Errorf("%w: width %d not in 1..%d", ErrArgs, width, MaxIntWidth)
	}
	if v >= 0 {
		if uint64(v) >= pow10[width] {
			return dst, fmt.Errorf("%w: %d has more than %d digits", ErrOverflow, v, width)
		}
		return appendDigits(dst, uint64(v), width), nil
	}
	m := uint64(-(v + 1)) + 1 // |v| without overflow at MinInt64
	if m > pow10[width] {
		return dst, fmt.Errorf("%w: %d has more than %d digits", ErrOverflow, v, width)
	}
	dst = append(dst, '-')
	return appendDigits(dst, pow10[width]-m, width), nil
}

func parseDigits(s string) (uint64, bool) {
	if len(s) == 0 || len(s) > MaxUintWidth {
		return 0, false
	}
	var v uint64
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (1<<64-1-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}

// ParseUint reverses [AppendUint]: s must be exactly width digits.
// Anything else is an error wrapping [ErrMalformed].
func ParseUint(s string, width int) (uint64, error) {
	if len(s) != width {
		return 0, fmt.Errorf("%w: %q is not %d digits", ErrMalformed, s, width)
	}
	v, ok := parseDigits(s)
	if !ok {
		return 0, fmt.Errorf("%w: %q is not %d digits", ErrMalformed, s, width)
	}
	return v, nil
}

// ParseInt reverses [AppendInt]: s must be width digits, or '-' and width
// digits. Anything else, or a value outside int64, is an error wrapping
// [ErrMalformed].
func ParseInt(s string, width int) (int64, error) {
	if width < 1 || width > MaxIntWidth {
		return 0, fmt.Errorf("%w: width %d not in 1..%d", ErrArgs, width, MaxIntWidth)
	}
	neg := len(s) > 0 && s[0] == '-'
	digits := s
	if neg {
		digits = s[1:]
	}
	if len(digits) != width {
		return 0, fmt.Errorf("%w: %q is not a %d-digit integer", ErrMalformed, s, width)
	}
	u, ok := parseDigits(digits)
	if !ok {
		return 0, fmt.Errorf("%w: %q is not a %d-digit integer", ErrMalformed, s, width)
	}
	if !neg {
		if u > 1<<63-1 {
			return 0, fmt.Errorf("%w: %q overflows int64", ErrMalformed, s)
		}
		return int64(u), nil
	}
	m := pow10[width] - u // 1..10^width
	if m > 1<<63 {
		return 0, fmt.Errorf("%w: %q overflows int64", ErrMalformed, s)
	}
	return -int64(m-1) - 1, nil
}

// TimeFormat selects a fixed-width ISO 8601 UTC layout for [AppendTime]
// and [ParseTime]. Its value is the number of fractional-second digits.
type TimeFormat int

// The time formats. The fraction is truncated, never rounded.
const (
	TimeSeconds TimeFormat = 0 // "2006-01-02T15:04:05Z"
	TimeMillis  TimeFormat = 3 // "2006-01-02T15:04:05.000Z"
	TimeNanos   TimeFormat = 9 // "2006-01-02T15:04:05.000000000Z"
)

// Len returns the length of a time in format f.
func (f TimeFormat) Len() int {
	if f == TimeSeconds {
		return 20
	}
	return 21 + int(f)
}

func (f TimeFormat) valid() bool {
	return f == TimeSeconds || f == TimeMillis || f == TimeNanos
}

// AppendTime appends t in UTC in format f. Every value has the same width,
// so byte order is time order. A time outside the years 0000-9999 is an
// error wrapping [ErrOverflow]; an unknown format one wrapping [ErrArgs].
func AppendTime(dst []byte, t time.Time, f TimeFormat) ([]byte, error) {
	if !f.valid() {
		return dst, fmt.Errorf("%w: time format %d", ErrArgs, int(f))
	}
	t = t.UTC()
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return dst, fmt.Errorf("%w: year %d outside 0000-9999", ErrOverflow, year)
	}
	hour, min, sec := t.Clock()
	dst = append(dst,
		byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-',
		byte('0'+month/10), byte('0'+month%10), '-',
		byte('0'+day/10), byte('0'+day%10), 'T',
		byte('0'+hour/10), byte('0'+hour%10), ':',
		byte('0'+min/10), byte('0'+min%10), ':',
		byte('0'+sec/10), byte('0'+sec%10))
	if f != TimeSeconds {
		dst = append(dst, '.')
		dst = appendDigits(dst, uint64(t.Nanosecond())/pow10[9-int(f)], int(f))
	}
	return append(dst, 'Z'), nil
}

// ParseTime reverses [AppendTime]: s must be exactly in format f. It
// returns a UTC time, or an error wrapping [ErrMalformed].
func ParseTime(s string, f TimeFormat) (time.Time, error) {
	if !f.valid() {
		return time.Time{}, fmt.Errorf("%w: time format %d", ErrArgs, int(f))
	}
	bad := func() (time.Time, error) {
		return time.Time{}, fmt.Errorf("%w: %q is not a time in format %q", ErrMalformed, s, f.layout())
	}
	if len(s) != f.Len() || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[len(s)-1] != 'Z' {
		return bad()
	}
	num := func(i, n int) int {
		v, ok := parseDigits(s[i : i+n])
		if !ok {
			return -1
		}
		return int(v)
	}
	year, month, day := num(0, 4), num(5, 2), num(8, 2)
	hour, min, sec := num(11, 2), num(14, 2), num(17, 2)
	nsec := 0
	if f != TimeSeconds {
		if s[19] != '.' {
			return bad()
		}
		if nsec = num(20, int(f)); nsec >= 0 {
			nsec *= int(pow10[9-int(f)])
		}
	}
	if year < 0 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 ||
		min < 0 || min > 59 || sec < 0 || sec > 59 || nsec < 0 {
		return bad()
	}
	t := time.Date(year, time.Month(month), day, hour, min, sec, nsec, time.UTC)
	if t.Day() != day {
		return bad() // February 30 and the like
	}
	return t, nil
}

func (f TimeFormat) layout() string {
	switch f {
	case TimeSeconds:
		return "2006-01-02T15:04:05Z"
	case TimeMillis:
		return "2006-01-02T15:04:05.000Z"
	default:
		return "2006-01-02T15:04:05.000000000Z"
	}
}

// String returns the format's reference layout in Go time syntax.
func (f TimeFormat) String() string { return f.layout() }
