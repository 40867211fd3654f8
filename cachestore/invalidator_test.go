package cachestore_test

import (
	"context"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/cachestore"
	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
)

func TestInvalidatorKeys(t *testing.T) {
	c, err := cache.New(cache.Options{AppID: "a", Env: "test", Service: "s"}) // no endpoint: bypass
	if err != nil {
		t.Fatal(err)
	}
	reg := cachestore.NewRegistry()
	reg.MustDeclare(cachestore.Derived{Name: "posts_of", Fields: []string{"categoryId"}, TTL: time.Minute, On: []string{"POST"}})
	reg.MustDeclare(cachestore.Derived{Name: "all_posts", TTL: time.Minute, On: []string{"POST"}})
	inv := cachestore.NewInvalidator(c, entity.NewTable(ddbmem.New(), "t"), reg)
	s := func(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
	keys := map[string]types.AttributeValue{"PK": s("CATEGORY#c1"), "SK": s("POST#p1")}
	img := func(cat string) map[string]types.AttributeValue {
		return map[string]types.AttributeValue{"PK": s("CATEGORY#c1"), "SK": s("POST#p1"), "Type": s("POST"), "categoryId": s(cat)}
	}
	for _, tc := range []struct {
		name string
		im   cachestore.Image
		want []string
	}{
		{"insert", cachestore.Image{Keys: keys, New: img("c1")}, []string{"ent:POST:CATEGORY#c1:POST#p1", "posts_of:c1", "all_posts"}},
		{"remove", cachestore.Image{Keys: keys, Old: img("c1")}, []string{"ent:POST:CATEGORY#c1:POST#p1", "posts_of:c1", "all_posts"}},
		{"modify moves a field", cachestore.Image{Keys: keys, Old: img("c1"), New: img("c2")},
			[]string{"ent:POST:CATEGORY#c1:POST#p1", "posts_of:c1", "all_posts", "posts_of:c2"}},
		{"keys only (KEYS_ONLY stream): no Type, nothing cached by type", cachestore.Image{Keys: keys}, nil},
		{"other type", cachestore.Image{Keys: keys, New: map[string]types.AttributeValue{"Type": s("USER")}},
			[]string{"ent:USER:CATEGORY#c1:POST#p1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, inv.Keys(tc.im), cmpopts.SortSlices(func(a, b string) bool { return a < b })); diff != "" {
				t.Fatalf("keys (-want +got):\n%s", diff)
			}
		})
	}
	if err := inv.Invalidate(context.Background(), cachestore.Image{Keys: keys, New: img("c1")}); err != nil {
		t.Fatalf("bypass mode: %v", err)
	}
}
