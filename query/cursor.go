package query

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
)

// ErrInvalidCursor is returned for a cursor that was forged, tampered
// with, signed with another key, or made by another query (another
// table, index, partition or access pattern).
var ErrInvalidCursor = errors.New("query: invalid cursor")

// cursorAttr is one key attribute in a cursor.
type cursorAttr struct {
	S *string `json:"s,omitempty"`
	N *string `json:"n,omitempty"`
	B []byte  `json:"b,omitempty"`
}

// fingerprint binds a cursor to the query that made it.
func fingerprint(table, index, partition, pattern string) []byte {
	h := sha256.New()
	for _, s := range []string{"tablekit/cursor/v1", table, index, partition, pattern} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return h.Sum(nil)
}

func sign(key, fp, payload []byte) []byte {
	m := hmac.New(sha256.New, key)
	m.Write(fp)
	m.Write(payload)
	return m.Sum(nil)
}

// encodeCursor returns the opaque cursor of a start key: the base64url of
// the key attributes (JSON), a dot, and the base64url HMAC-SHA256 over
// the query fingerprint and the payload.
func encodeCursor(key, fp []byte, start map[string]types.AttributeValue) (string, error) {
	m := make(map[string]cursorAttr, len(start))
	for name, av := range start {
		switch v := av.(type) {
		case *types.AttributeValueMemberS:
			s := v.Value
			m[name] = cursorAttr{S: &s}
		case *types.AttributeValueMemberN:
			n := v.Value
			m[name] = cursorAttr{N: &n}
		case *types.AttributeValueMemberB:
			m[name] = cursorAttr{B: v.Value}
		default:
			return "", fmt.Errorf("query: key attribute %s has unsupported type %T", name, av)
		}
	}
	payload, err := json.Marshal(m)
	if err != nil {
		return "", err
	}
	enc := base64.RawURLEncoding
	return enc.EncodeToString(payload) + "." + enc.EncodeToString(sign(key, fp, payload)), nil
}

// decodeCursor verifies and decodes a cursor; want lists the key
// attributes it must hold exactly.
func decodeCursor(key, fp []byte, cursor string, want []string) (map[string]types.AttributeValue, error) {
	enc := base64.RawURLEncoding
	p, s, ok := strings.Cut(cursor, ".")
	if !ok {
		return nil, ErrInvalidCursor
	}
	payload, err1 := enc.DecodeString(p)
	mac, err2 := enc.DecodeString(s)
	if err1 != nil || err2 != nil || !hmac.Equal(mac, sign(key, fp, payload)) {
		return nil, ErrInvalidCursor
	}
	var m map[string]cursorAttr
	if err := json.Unmarshal(payload, &m); err != nil || len(m) != len(want) {
		return nil, ErrInvalidCursor
	}
	out := make(map[string]types.AttributeValue, len(m))
	for _, name := range want {
		a, ok := m[name]
		switch {
		case !ok:
			return nil, ErrInvalidCursor
		case a.S != nil:
			out[name] = &types.AttributeValueMemberS{Value: *a.S}
		case a.N != nil:
			out[name] = &types.AttributeValueMemberN{Value: *a.N}
		case a.B != nil:
			out[name] = &types.AttributeValueMemberB{Value: a.B}
		default:
			return nil, ErrInvalidCursor
		}
	}
	return out, nil
}
