package idempotency_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/entity/participation"
	"github.com/tablekit/tablekit/idempotency"
	"github.com/tablekit/tablekit/keys"
)

// DefaultKey and the generated key of seed 004's IdempotencyLock
// ("IDEMP#{EventID}#{UserID}", SK LOCK) are one key for every input,
// including values holding the delimiter and the escape character.
func TestDefaultKeyAgreesWithGeneratedKey(t *testing.T) {
	tests := []struct{ event, user string }{
		{"ev-42", "user-7"},
		{"ev#42", "user-7"},
		{"ev-42", "user#7"},
		{"ev%42", "user%7"},
		{"e#%", "%#u"},
		{"%23", "%25"},
		{"#", "#"},
		{"이벤트#1", "사용자%2"},
	}
	for _, tt := range tests {
		t.Run(tt.event+"|"+tt.user, func(t *testing.T) {
			want, err := participation.IdempotencyLockKey(tt.event, tt.user)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want, idempotency.DefaultKey(tt.event, tt.user)); diff != "" {
				t.Errorf("DefaultKey differs from IdempotencyLockKey (-generated +DefaultKey):\n%s", diff)
			}
		})
	}
}

// A one-part key is the template "IDEMP#{Key}" of the keys package, and
// different lists of parts never share a record key.
func TestDefaultKeyEscapes(t *testing.T) {
	tpl := keys.MustNew("IDEMP#{Key}")
	for _, k := range []string{"order-1", "a#b", "a%b", "%23", "a%23b"} {
		want, err := tpl.Build(k)
		if err != nil {
			t.Fatal(err)
		}
		if got := idempotency.DefaultKey(k); got.PK != want || got.SK != "LOCK" {
			t.Errorf("DefaultKey(%q) = %+v, want PK %q SK LOCK", k, got, want)
		}
	}
	distinct := [][]string{{"a#b"}, {"a", "b"}, {"a%23b"}, {"a%", "23b"}, {"a", "", "b"}}
	seen := map[string][]string{}
	for _, parts := range distinct {
		pk := idempotency.DefaultKey(parts...).PK
		if prev, ok := seen[pk]; ok {
			t.Errorf("DefaultKey(%q) and DefaultKey(%q) share %q", prev, parts, pk)
		}
		seen[pk] = parts
	}
}
