package ddbexpr

import (
	"errors"
	"math/big"
	"strings"
)

// Number is an exact decimal number as DynamoDB stores it: a sign, the
// significant digits without leading or trailing zeros, and an exponent
// such that the value is 0.Digits × 10^Exp. Zero has no digits.
type Number struct {
	Neg    bool
	Digits string
	Exp    int
}

// Number errors, with DynamoDB's messages (dynalite's test suite records
// them; DynamoDB Local words the first two otherwise). ParseNumber
// returns a text that is not a number as a *NotNumberError, which is
// ErrNotNumber.
var (
	//lint:ignore ST1005 DynamoDB's message
	ErrNotNumber = errors.New("The parameter cannot be converted to a numeric value")
	//lint:ignore ST1005 DynamoDB's message
	ErrNumPrecision  = errors.New("Attempting to store more than 38 significant digits in a Number")
	ErrNumOverflow   = errors.New("Number overflow. Attempting to store a number with magnitude larger than supported range")
	ErrNumUnderflow  = errors.New("Number underflow. Attempting to store a number with magnitude smaller than supported range")
	maxNumberDigits  = 38
	maxNumberExp     = 126  // 9.99..E+125 = 0.999..E+126
	minNumberExp     = -129 // 1E-130 = 0.1E-129
	numberKeyExpBias = 1 << 14
)

// NotNumberError is a text given as a number that is not one. DynamoDB
// quotes the text after ErrNotNumber's message, unless it is empty.
type NotNumberError struct{ Text string }

func (e *NotNumberError) Error() string {
	if e.Text == "" {
		return ErrNotNumber.Error()
	}
	return ErrNotNumber.Error() + ": " + e.Text
}

// Is makes the error ErrNotNumber for errors.Is.
func (e *NotNumberError) Is(target error) bool { return target == ErrNotNumber }

// ParseNumber parses and validates a DynamoDB number string.
func ParseNumber(s string) (Number, error) {
	var n Number
	// No whitespace around the digits: DynamoDB rejects " 1".
	if s == "" {
		return n, &NotNumberError{}
	}
	i := 0
	if s[0] == '-' || s[0] == '+' {
		n.Neg = s[0] == '-'
		i++
	}
	var digits []byte
	intDigits := 0
	seenDot, seenDigit := false, false
	for ; i < len(s); i++ {
		c := s[i]
		if c >= '0' && c <= '9' {
			seenDigit = true
			digits = append(digits, c)
			if !seenDot {
				intDigits++
			}
			continue
		}
		if c == '.' && !seenDot {
			seenDot = true
			continue
		}
		break
	}
	if !seenDigit {
		return n, &NotNumberError{Text: s}
	}
	exp := 0
	if i < len(s) {
		if s[i] != 'e' && s[i] != 'E' {
			return n, &NotNumberError{Text: s}
		}
		i++
		eneg := false
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			eneg = s[i] == '-'
			i++
		}
		if i == len(s) {
			return n, &NotNumberError{Text: s}
		}
		for ; i < len(s); i++ {
			c := s[i]
			if c < '0' || c > '9' {
				return n, &NotNumberError{Text: s}
			}
			if exp < 100000 {
				exp = exp*10 + int(c-'0')
			}
		}
		if eneg {
			exp = -exp
		}
	}
	// strip leading zeros
	lead := 0
	for lead < len(digits) && digits[lead] == '0' {
		lead++
	}
	digits = digits[lead:]
	e := intDigits - lead + exp
	// strip trailing zeros
	t := len(digits)
	for t > 0 && digits[t-1] == '0' {
		t--
	}
	digits = digits[:t]
	if len(digits) == 0 {
		return Number{}, nil
	}
	n.Digits = string(digits)
	n.Exp = e
	return n, n.checkRange()
}

// checkRange reports whether n has more digits than DynamoDB keeps
// (ErrNumPrecision) or an exponent out of its range (ErrNumOverflow,
// ErrNumUnderflow).
func (n Number) checkRange() error {
	switch {
	case len(n.Digits) > maxNumberDigits:
		return ErrNumPrecision
	case n.Exp > maxNumberExp:
		return ErrNumOverflow
	case n.Exp < minNumberExp:
		return ErrNumUnderflow
	}
	return nil
}

// IsZero reports whether n is zero.
func (n Number) IsZero() bool { return n.Digits == "" }

// String returns the canonical plain decimal form DynamoDB returns.
func (n Number) String() string {
	if n.Digits == "" {
		return "0"
	}
	var b strings.Builder
	if n.Neg {
		b.WriteByte('-')
	}
	d := n.Digits
	switch {
	case n.Exp <= 0:
		b.WriteString("0.")
		for i := 0; i < -n.Exp; i++ {
			b.WriteByte('0')
		}
		b.WriteString(d)
	case n.Exp >= len(d):
		b.WriteString(d)
		for i := len(d); i < n.Exp; i++ {
			b.WriteByte('0')
		}
	default:
		b.WriteString(d[:n.Exp])
		b.WriteByte('.')
		b.WriteString(d[n.Exp:])
	}
	return b.String()
}

// Cmp compares n and m and returns -1, 0 or +1.
func (n Number) Cmp(m Number) int {
	if n.Neg != m.Neg {
		if n.IsZero() && m.IsZero() {
			return 0
		}
		if n.Neg {
			return -1
		}
		return 1
	}
	c := cmpAbs(n, m)
	if n.Neg {
		return -c
	}
	return c
}

func cmpAbs(n, m Number) int {
	if n.IsZero() || m.IsZero() {
		switch {
		case n.IsZero() && m.IsZero():
			return 0
		case n.IsZero():
			return -1
		default:
			return 1
		}
	}
	if n.Exp != m.Exp {
		if n.Exp < m.Exp {
			return -1
		}
		return 1
	}
	return strings.Compare(n.Digits, m.Digits)
}

func (n Number) bigScaled(scale int) *big.Int {
	// value = digits × 10^(Exp-len(digits)); return value × 10^-scale.
	v, _ := new(big.Int).SetString(n.Digits, 10)
	if v == nil {
		v = new(big.Int)
	}
	shift := n.Exp - len(n.Digits) - scale
	if shift > 0 {
		v.Mul(v, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(shift)), nil))
	}
	if n.Neg {
		v.Neg(v)
	}
	return v
}

// Add returns n+m exactly, validated against DynamoDB's limits.
func (n Number) Add(m Number) (Number, error) {
	if n.IsZero() {
		return m, nil
	}
	if m.IsZero() {
		return n, nil
	}
	scale := n.Exp - len(n.Digits)
	if s := m.Exp - len(m.Digits); s < scale {
		scale = s
	}
	sum := new(big.Int).Add(n.bigScaled(scale), m.bigScaled(scale))
	var r Number
	if sum.Sign() == 0 {
		return r, nil
	}
	if sum.Sign() < 0 {
		r.Neg = true
		sum.Neg(sum)
	}
	d := sum.String()
	e := len(d) + scale
	t := len(d)
	for t > 0 && d[t-1] == '0' {
		t--
	}
	r.Digits = d[:t]
	r.Exp = e
	return r, r.checkRange()
}

// Sub returns n-m.
func (n Number) Sub(m Number) (Number, error) {
	if !m.IsZero() {
		m.Neg = !m.Neg
	}
	return n.Add(m)
}

// AppendKey appends an encoding of n whose byte order is numeric order.
func (n Number) AppendKey(b []byte) []byte {
	if n.IsZero() {
		return append(b, 0x02)
	}
	e := n.Exp + numberKeyExpBias
	if !n.Neg {
		b = append(b, 0x03, byte(e>>8), byte(e))
		return append(b, n.Digits...)
	}
	e = 0xFFFF - e
	b = append(b, 0x01, byte(e>>8), byte(e))
	for i := 0; i < len(n.Digits); i++ {
		b = append(b, '9'-n.Digits[i]+'0')
	}
	return append(b, 0xFF)
}

// KeyNumber decodes AppendKey's encoding, reporting false for bytes
// AppendKey does not produce.
func KeyNumber(enc string) (Number, bool) {
	if enc == "\x02" {
		return Number{}, true
	}
	if len(enc) < 4 || (enc[0] != 0x01 && enc[0] != 0x03) {
		return Number{}, false
	}
	e := int(enc[1])<<8 | int(enc[2])
	if enc[0] == 0x03 {
		return Number{Digits: enc[3:], Exp: e - numberKeyExpBias}, true
	}
	if enc[len(enc)-1] != 0xFF {
		return Number{}, false
	}
	d := []byte(enc[3 : len(enc)-1])
	for i := range d {
		d[i] = '9' - d[i] + '0'
	}
	return Number{Neg: true, Digits: string(d), Exp: 0xFFFF - e - numberKeyExpBias}, true
}

// AppendStored appends n in DynamoDB's own byte form of a number, the
// bytes its partitioner hashes: an exponent byte (base 100, biased by
// 64, bits inverted for a negative number), then the significant digits
// two to a byte (the pair's value plus one; for a negative number, 101
// less the value, and a final 102 when there are fewer than 20 such
// bytes). Zero is the single byte 0x80.
func (n Number) AppendStored(b []byte) []byte {
	if n.IsZero() {
		return append(b, 0x80)
	}
	d, e := n.Digits, n.Exp
	if e%2 != 0 { // a leading zero digit makes the exponent even
		d, e = "0"+d, e+1
	}
	head := byte(e/2 - 64)
	if n.Neg {
		head = ^head
	}
	b = append(b, head)
	pairs := 0
	for i := 0; i < len(d); i += 2 {
		v := int(d[i]-'0') * 10
		if i+1 < len(d) {
			v += int(d[i+1] - '0')
		}
		if n.Neg {
			b = append(b, byte(101-v))
		} else {
			b = append(b, byte(v+1))
		}
		pairs++
	}
	if n.Neg && pairs < 20 {
		b = append(b, 102)
	}
	return b
}

// NormalizeNumber returns the canonical form of s, or an error.
func NormalizeNumber(s string) (string, error) {
	n, err := ParseNumber(s)
	if err != nil {
		return "", err
	}
	return n.String(), nil
}
