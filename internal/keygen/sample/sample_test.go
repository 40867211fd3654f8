package sample_test

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/keygen/sample"
	"github.com/tablekit/tablekit/keys"
	"github.com/tablekit/tablekit/keys/codec"
)

var (
	_ entity.Item = (*sample.Artifact)(nil)
	_ entity.Item = (*sample.Segment)(nil)
	_ entity.Item = (*sample.Request)(nil)
	_ entity.Item = (*sample.CorpInfo)(nil)
	_ entity.Item = (*sample.Kitchen)(nil)
)

var at = time.Date(2025, 11, 12, 5, 0, 0, 123456789, time.UTC)

func s(v string) types.AttributeValue { return &types.AttributeValueMemberS{Value: v} }
func n(v string) types.AttributeValue { return &types.AttributeValueMemberN{Value: v} }

// checkKeys recomputes every key attribute with KeyAttr.Build and compares
// it with what MarshalItem wrote.
func checkKeys(t *testing.T, it entity.Item, item map[string]types.AttributeValue) {
	t.Helper()
	for _, k := range it.EntitySchema().Keys {
		got, err := k.Build(item)
		if err != nil {
			if k.Sparse && errors.Is(err, keys.ErrMissingField) {
				if _, ok := item[k.Attr]; ok {
					t.Errorf("%s: Build missing but MarshalItem wrote it", k.Attr)
				}
				continue
			}
			t.Fatalf("%s: Build: %v", k.Attr, err)
		}
		if diff := cmp.Diff(item[k.Attr], s(got), cmpopts.IgnoreUnexported(types.AttributeValueMemberS{})); diff != "" {
			t.Errorf("%s: Build differs from MarshalItem (-marshal +build):\n%s", k.Attr, diff)
		}
	}
}

func TestArtifact(t *testing.T) {
	a := &sample.Artifact{ArtifactID: "a1", UserID: "u#1", ProjectID: "p1", CreatedAt: at}
	item, err := a.MarshalItem()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]types.AttributeValue{
		"Type": s("ARTIFACT"), "PK": s("ART#a1"), "SK": s("META"),
		"GSI1PK": s("USR#u%231#ART"), "GSI1SK": s("2025-11-12T05:00:00.123Z"),
		"GSI2PK": s("USR#u%231#PROJ#p1#ART"), "GSI2SK": s("2025-11-12T05:00:00.123Z"),
		"artifact_id": s("a1"), "user_id": s("u#1"), "project_id": s("p1"), "created_at": s("2025-11-12T05:00:00.123Z"),
	}
	if diff := cmp.Diff(want, item, cmpopts.IgnoreUnexported(types.AttributeValueMemberS{})); diff != "" {
		t.Errorf("MarshalItem (-want +got):\n%s", diff)
	}
	checkKeys(t, a, item)
	var back sample.Artifact
	if err := back.UnmarshalItem(item); err != nil {
		t.Fatal(err)
	}
	want2 := *a
	want2.CreatedAt = at.Truncate(time.Millisecond)
	if diff := cmp.Diff(want2, back); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}
	user, proj, err := sample.ParseArtifactGSI2PK("USR#u%231#PROJ#p1#ART")
	if err != nil || user != "u#1" || proj != "p1" {
		t.Errorf("ParseArtifactGSI2PK = %q, %q, %v", user, proj, err)
	}
	if p, _ := sample.ArtifactGSI2PKPrefixByUserID("abc"); p != "USR#abc#PROJ#" {
		t.Errorf("prefix = %q", p)
	}
	k, err := a.PrimaryKey()
	if err != nil || k != (entity.Key{PK: "ART#a1", SK: "META"}) {
		t.Errorf("PrimaryKey = %v, %v", k, err)
	}
	if id, err := sample.ParseArtifactKey(k); err != nil || id != "a1" {
		t.Errorf("ParseArtifactKey = %q, %v", id, err)
	}
}

func TestSegmentOrder(t *testing.T) {
	var sks []string
	for _, i := range []int{-3, 0, 2, 10, 999999} {
		sk, err := sample.SegmentSK(i)
		if err != nil {
			t.Fatal(err)
		}
		sks = append(sks, sk)
		back, err := sample.ParseSegmentSK(sk)
		if err != nil || back != i {
			t.Errorf("ParseSegmentSK(%q) = %d, %v", sk, back, err)
		}
	}
	if sks[2] != "SEG#000002" || sks[3] != "SEG#000010" {
		t.Errorf("SKs = %q", sks)
	}
	for i := 1; i < len(sks); i++ {
		if sks[i-1] >= sks[i] {
			t.Errorf("%q sorts after %q", sks[i-1], sks[i])
		}
	}
	if _, err := sample.SegmentSK(1000000); !errors.Is(err, keys.ErrOverflow) {
		t.Errorf("SegmentSK(1000000) = %v, want ErrOverflow", err)
	}
	seg := &sample.Segment{WorkflowID: "w1", Index: 1000000}
	if _, err := seg.MarshalItem(); !errors.Is(err, keys.ErrOverflow) {
		t.Errorf("MarshalItem with overflow = %v", err)
	}
}

func TestRequestSparseIndex(t *testing.T) {
	r := &sample.Request{RequestID: "r1", EventID: "e1", Status: "RECEIVED", CreatedAt: at, UpdatedAt: at, Version: 1}
	item, err := r.MarshalItem()
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := item["GSI2SK"]; ok {
		t.Error("sparse GSI2SK written before queuedAt")
	}
	if _, ok := item["GSI2PK"]; !ok {
		t.Error("sparse GSI2PK left out although eventId is set")
	}
	if _, ok := item["queuedAt"]; ok {
		t.Error("omitempty queuedAt written")
	}
	if diff := cmp.Diff(s("2025-11-12T05:00:00Z"), item["CreatedAt"], cmpopts.IgnoreUnexported(types.AttributeValueMemberS{})); diff != "" {
		t.Error(diff)
	}
	checkKeys(t, r, item)

	r.QueuedAt = at
	r.ExpiresAt = time.Unix(1767225600, 0)
	item, err = r.MarshalItem()
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(s("QAT#2025-11-12T05:00:00.123Z#REQ#r1"), item["GSI2SK"], cmpopts.IgnoreUnexported(types.AttributeValueMemberS{})); diff != "" {
		t.Error(diff)
	}
	if diff := cmp.Diff(n("1767225600"), item["expiresAt"], cmpopts.IgnoreUnexported(types.AttributeValueMemberN{})); diff != "" {
		t.Error(diff)
	}
	checkKeys(t, r, item)
	if p, _ := sample.RequestGSI2SKPrefixByQueuedAt(at); p != "QAT#2025-11-12T05:00:00.123Z#REQ#" {
		t.Errorf("prefix %q", p)
	}
	sch := r.EntitySchema()
	if sch.VersionAttr != "version" || sch.CreatedAttr != "CreatedAt" || sch.UpdatedAttr != "UpdatedAt" || sch.TTLAttr != "expiresAt" {
		t.Errorf("schema attrs %+v", sch)
	}

	// A non-sparse index needs its field.
	r.CreatedAt = time.Time{}
	if _, err := r.MarshalItem(); !errors.Is(err, keys.ErrMissingField) {
		t.Errorf("zero CreatedAt: %v, want ErrMissingField", err)
	}
	// A sparse index still reports errors other than a missing field.
	r.CreatedAt = at
	r.RequestID = strings.Repeat("r", 1100)
	if _, err := r.MarshalItem(); !errors.Is(err, keys.ErrTooLarge) {
		t.Errorf("oversize sort key: %v, want ErrTooLarge", err)
	}
}

func TestCorpInfo(t *testing.T) {
	k, err := sample.CorpInfoKey()
	if err != nil || k != (entity.Key{PK: "CORP#INFO", SK: "METADATA"}) {
		t.Fatalf("CorpInfoKey = %v, %v", k, err)
	}
	if err := sample.ParseCorpInfoKey(k); err != nil {
		t.Error(err)
	}
	if err := sample.ParseCorpInfoKey(entity.Key{PK: "CORP#INFO", SK: "META"}); !errors.Is(err, keys.ErrMalformed) {
		t.Errorf("wrong SK: %v", err)
	}
}

func TestKeyErrors(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want error
	}{
		{"empty", func() error { _, err := sample.ArtifactPK(""); return err }(), keys.ErrMissingField},
		{"partition key too large", func() error { _, err := sample.ArtifactPK(strings.Repeat("x", 2045)); return err }(), keys.ErrTooLarge},
		{"width overflow", func() error { _, err := sample.SegmentSK(-1000001); return err }(), keys.ErrOverflow},
		{"bad literal", func() error { _, err := sample.ParseArtifactPK("ARX#a"); return err }(), keys.ErrMalformed},
		{"too many segments", func() error { _, _, err := sample.ParseArtifactGSI2PK("USR#u#PROJ#p#ART#x"); return err }(), keys.ErrMalformed},
		{"too few segments", func() error { _, _, err := sample.ParseArtifactGSI2PK("USR#u#PROJ#p"); return err }(), keys.ErrMalformed},
		{"bad width", func() error { _, err := sample.ParseSegmentSK("SEG#02"); return err }(), keys.ErrMalformed},
		{"bad escape", func() error { _, err := sample.ParseArtifactPK("ART#a%2"); return err }(), keys.ErrMalformed},
		{"PK of another entity", func() error { _, err := sample.ParseArtifactKey(entity.Key{PK: "REQ#r1", SK: "META"}); return err }(), keys.ErrMalformed},
		{"missing source", func() error {
			_, err := (&sample.Artifact{}).EntitySchema().Keys[0].Build(map[string]types.AttributeValue{})
			return err
		}(), keys.ErrMissingField},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ke *keys.Error
			if !errors.Is(tt.err, tt.want) || !errors.As(tt.err, &ke) {
				t.Errorf("err = %v, want a *keys.Error wrapping %v", tt.err, tt.want)
			}
		})
	}
}

func fullKitchen() sample.Kitchen {
	str, i64, st := "opt", int64(-5), sample.Status("S")
	tm := at.Truncate(time.Millisecond)
	return sample.Kitchen{
		ID: "k1", Flag: true, I: -1, N8: -8, I16: 16, I32: -32, I64: 64,
		U: 1, U8: 8, U16: 16, U32: 32, U64: 1<<64 - 1, F32: 1.5, F64: -2.25,
		At: tm, AtMs: tm, Blob: []byte{0, 1, 2}, List: []string{"a", "b"}, Set: []string{"x"},
		Labels: sample.Labels{"l1", "l2"}, Map: map[string]string{"k": "v"}, Status: "ACTIVE", Count: 7,
		OptString: &str, OptInt: &i64, OptTime: &tm, OptStatus: &st,
		Custom: sample.Upper{V: "abc"}, OptCustom: &sample.Upper{V: "def"}, Renamed: "r",
	}
}

func TestKitchenRoundTrip(t *testing.T) {
	k := fullKitchen()
	item, err := k.MarshalItem()
	if err != nil {
		t.Fatal(err)
	}
	checkKeys(t, &k, item)
	if got := item["custom"].(*types.AttributeValueMemberS).Value; got != "ABC" {
		t.Errorf("custom marshaler not used: %q", got)
	}
	if _, ok := item["set"].(*types.AttributeValueMemberSS); !ok {
		t.Errorf("set is %T", item["set"])
	}
	if _, ok := item["Skipped"]; ok {
		t.Error("ddb:\"-\" field written")
	}
	// Unknown and NULL attributes are ignored.
	item["unknown"] = s("x")
	item["optInt"] = &types.AttributeValueMemberNULL{Value: true}
	var back sample.Kitchen
	if err := back.UnmarshalItem(item); err != nil {
		t.Fatal(err)
	}
	want := k
	want.OptInt = nil
	want.Custom.V, want.OptCustom.V = "ABC", "DEF"
	if diff := cmp.Diff(want, back, cmpopts.IgnoreUnexported(sample.Kitchen{})); diff != "" {
		t.Errorf("round trip (-want +got):\n%s", diff)
	}

	// Zero value: omitempty and nil fields are left out.
	var zero sample.Kitchen
	zero.ID = "z"
	item, err = zero.MarshalItem()
	if err == nil {
		t.Fatal("zero At in the SK: want an error")
	}
	zero.At = at
	if item, err = zero.MarshalItem(); err != nil {
		t.Fatal(err)
	}
	for _, attr := range []string{"f64", "blob", "set", "labels", "status", "optString", "optInt", "optTime", "optStatus", "optCustom", "list", "map"} {
		if _, ok := item[attr]; ok {
			t.Errorf("%s written for a zero value", attr)
		}
	}
}

func TestWrongAttributeType(t *testing.T) {
	base, err := func() (map[string]types.AttributeValue, error) { k := fullKitchen(); return k.MarshalItem() }()
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		attr string
		av   types.AttributeValue
		want error
	}{
		{"id", n("1"), codec.ErrType},
		{"flag", s("true"), codec.ErrType},
		{"i", s("1"), codec.ErrType},
		{"n8", n("300"), codec.ErrValue},
		{"u8", n("-1"), codec.ErrValue},
		{"u64", n("1.5"), codec.ErrValue},
		{"f32", s("x"), codec.ErrType},
		{"f64", n("abc"), codec.ErrValue},
		{"at", n("1"), codec.ErrType},
		{"at", s("yesterday"), codec.ErrValue},
		{"atMs", s("1"), codec.ErrType},
		{"blob", s("x"), codec.ErrType},
		{"list", s("x"), codec.ErrType},
		{"list", &types.AttributeValueMemberL{Value: []types.AttributeValue{n("1")}}, codec.ErrType},
		{"map", &types.AttributeValueMemberL{}, codec.ErrType},
		{"map", &types.AttributeValueMemberM{Value: map[string]types.AttributeValue{"k": n("1")}}, codec.ErrType},
		{"optString", n("1"), codec.ErrType},
		{"optTime", &types.AttributeValueMemberBOOL{}, codec.ErrType},
		{"count", n("99999999999"), codec.ErrValue},
	}
	for _, tt := range tests {
		t.Run(tt.attr, func(t *testing.T) {
			item := map[string]types.AttributeValue{}
			for k, v := range base {
				item[k] = v
			}
			item[tt.attr] = tt.av
			var k sample.Kitchen
			err := k.UnmarshalItem(item)
			var ae *codec.AttrError
			if !errors.Is(err, tt.want) || !errors.As(err, &ae) || !strings.HasPrefix(ae.Attr, tt.attr) {
				t.Errorf("err = %v, want a *codec.AttrError for %q wrapping %v", err, tt.attr, tt.want)
			}
		})
	}
	// The custom unmarshaler's own error is wrapped with the attribute name.
	item := map[string]types.AttributeValue{"custom": n("1")}
	var k sample.Kitchen
	var ae *codec.AttrError
	if err := k.UnmarshalItem(item); !errors.As(err, &ae) || ae.Attr != "custom" {
		t.Errorf("custom: %v", err)
	}
	// NaN cannot be stored.
	bad := fullKitchen()
	bad.F64 = float64(0) / func() float64 { return 0 }()
	if _, err := bad.MarshalItem(); !errors.Is(err, codec.ErrValue) {
		t.Errorf("NaN: %v", err)
	}
}

func TestFieldDescriptors(t *testing.T) {
	if sample.KitchenOptString.Name != "optString" {
		t.Errorf("Name = %q", sample.KitchenOptString.Name)
	}
	if av, err := sample.KitchenOptString.Encode(nil); av != nil || err != nil {
		t.Errorf("Encode(nil) = %v, %v", av, err)
	}
	if av, err := sample.KitchenStatus.Encode(""); av != nil || err != nil {
		t.Errorf("omitempty Encode(\"\") = %v, %v", av, err)
	}
	k := fullKitchen()
	item, _ := k.MarshalItem()
	for _, tt := range []struct {
		name string
		enc  func() (types.AttributeValue, error)
	}{
		{"at", func() (types.AttributeValue, error) { return sample.KitchenAt.Encode(k.At) }},
		{"count", func() (types.AttributeValue, error) { return sample.KitchenCount.Encode(k.Count) }},
		{"labels", func() (types.AttributeValue, error) { return sample.KitchenLabels.Encode(k.Labels) }},
		{"custom", func() (types.AttributeValue, error) { return sample.KitchenCustom.Encode(k.Custom) }},
		{"optTime", func() (types.AttributeValue, error) { return sample.KitchenOptTime.Encode(k.OptTime) }},
	} {
		av, err := tt.enc()
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(item[tt.name], av, cmpopts.IgnoreUnexported(types.AttributeValueMemberS{}, types.AttributeValueMemberN{}, types.AttributeValueMemberSS{})); diff != "" {
			t.Errorf("%s: Field.Encode differs from MarshalItem:\n%s", tt.name, diff)
		}
	}
}

// FuzzArtifactGSI2PK: the generated builder and parser round-trip.
func FuzzArtifactGSI2PK(f *testing.F) {
	f.Add("u001", "p001")
	f.Add("a#b", "%23")
	f.Add("", "p")
	f.Fuzz(func(t *testing.T, user, project string) {
		key, err := sample.ArtifactGSI2PK(user, project)
		if err != nil {
			if !errors.Is(err, keys.ErrMissingField) && !errors.Is(err, keys.ErrTooLarge) {
				t.Fatalf("ArtifactGSI2PK(%q, %q): %v", user, project, err)
			}
			return
		}
		u, p, err := sample.ParseArtifactGSI2PK(key)
		if err != nil || u != user || p != project {
			t.Fatalf("Parse(%q) = %q, %q, %v", key, u, p, err)
		}
		prefix, err := sample.ArtifactGSI2PKPrefixByUserID(user)
		if err != nil || !strings.HasPrefix(key, prefix) {
			t.Fatalf("prefix %q of key %q: %v", prefix, key, err)
		}
	})
}

// TestRefreshItem: RefreshItem on the value an item was marshalled from
// leaves it exactly as UnmarshalItem does (skipped and unexported fields
// zeroed, times at the stored precision and in UTC, empty slices nil,
// pointers new), for a full value, a nearly empty one, and values whose
// times are finer than their stored format and not in UTC.
func TestRefreshItem(t *testing.T) {
	full := fullKitchen()
	full.Skipped = "not stored"
	local := full
	local.At = time.Date(2026, 11, 26, 23, 1, 6, 987654321, time.FixedZone("KST", 9*3600))
	local.AtMs = local.At
	local.List, local.Map, local.Blob = []string{}, map[string]string{}, []byte{}
	nearlyEmpty := sample.Kitchen{ID: "z", At: at, Renamed: "r"}
	for name, k := range map[string]sample.Kitchen{"full": full, "local": local, "nearlyEmpty": nearlyEmpty} {
		item, err := k.MarshalItem()
		if err != nil {
			t.Fatal(name, err)
		}
		decoded, refreshed := k, k
		if err := decoded.UnmarshalItem(item); err != nil {
			t.Fatal(name, err)
		}
		if err := refreshed.RefreshItem(item); err != nil {
			t.Fatal(name, err)
		}
		if diff := cmp.Diff(decoded, refreshed, cmpopts.IgnoreUnexported(sample.Kitchen{})); diff != "" {
			t.Errorf("%s: RefreshItem differs from UnmarshalItem (-unmarshal +refresh):\n%s", name, diff)
		}
		if refreshed.Skipped != "" || (refreshed.OptString != nil && refreshed.OptString == k.OptString) {
			t.Errorf("%s: RefreshItem kept a field UnmarshalItem resets: %+v", name, refreshed)
		}
	}
}
