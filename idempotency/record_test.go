package idempotency

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/feature/dynamodb/attributevalue"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/aws/smithy-go"
)

func TestItemSizeBoundsTheEncoding(t *testing.T) {
	big := strings.Repeat("x", 1000)
	for _, tc := range []struct {
		name string
		v    any
		min  int // the raw payload bytes the estimate must at least count
	}{
		{"string", big, 1000},
		{"bytes", []byte(big), 1000},
		{"list", []string{big, big}, 2000},
		{"map", map[string]string{"a": big, "b": big}, 2002},
		{"struct", struct {
			A string
			N int64
			B bool
		}{big, 1 << 40, true}, 1000 + 1 + 7 + 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			av, err := attributevalue.Marshal(tc.v)
			if err != nil {
				t.Fatal(err)
			}
			if got := valueSize(av); got < tc.min {
				t.Errorf("valueSize = %d, want >= %d", got, tc.min)
			}
		})
	}
	item := map[string]types.AttributeValue{"PK": strAV("IDEMP#k"), "n": numAV(12345)}
	if got, want := itemSize(item), len("PK")+len("IDEMP#k")+len("n")+3; got < want {
		t.Errorf("itemSize = %d, want >= %d", got, want)
	}
}

func TestAmbiguous(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"network", errors.New("connection reset"), true},
		{"client fault", &smithy.GenericAPIError{Code: "ValidationException", Fault: smithy.FaultClient}, false},
		{"server fault", &smithy.GenericAPIError{Code: "InternalServerError", Fault: smithy.FaultServer}, true},
		{"condition", &types.ConditionalCheckFailedException{}, false},
	} {
		if got := ambiguous(tc.err); got != tc.want {
			t.Errorf("%s: ambiguous = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestDecodeRecord(t *testing.T) {
	o := Options{}
	o.setDefaults()
	good := map[string]types.AttributeValue{
		attrStatus: strAV(StatusInProgress), attrOwner: strAV("o"), attrHash: strAV("h"),
		attrLease: numAV(1000), "ttl": numAV(5), "firstValue": strAV("req-1"),
	}
	r, err := decodeRecord(good, &o)
	if err != nil || r.first != "req-1" || r.leaseMs != 1000 || r.expires != 5 {
		t.Fatalf("decode: %+v %v", r, err)
	}
	if r, err := decodeRecord(nil, &o); r != nil || err != nil {
		t.Errorf("empty item: %v %v", r, err)
	}
	for name, mutate := range map[string]func(m map[string]types.AttributeValue){
		"no status":     func(m map[string]types.AttributeValue) { delete(m, attrStatus) },
		"owner not S":   func(m map[string]types.AttributeValue) { m[attrOwner] = numAV(1) },
		"lease not N":   func(m map[string]types.AttributeValue) { m[attrLease] = strAV("x") },
		"ttl not int":   func(m map[string]types.AttributeValue) { m["ttl"] = &types.AttributeValueMemberN{Value: "1.5"} },
		"first not str": func(m map[string]types.AttributeValue) { m["firstValue"] = numAV(3) },
		"no lease":      func(m map[string]types.AttributeValue) { delete(m, attrLease) },
	} {
		m := map[string]types.AttributeValue{}
		for k, v := range good {
			m[k] = v
		}
		mutate(m)
		if _, err := decodeRecord(m, &o); !errors.Is(err, ErrCorruptRecord) {
			t.Errorf("%s: err = %v, want ErrCorruptRecord", name, err)
		}
	}
}

func TestExpired(t *testing.T) {
	now := time.UnixMilli(1_000_000_000)
	skew := time.Second
	for _, tc := range []struct {
		name string
		r    record
		want bool
	}{
		{"lease running", record{status: StatusInProgress, leaseMs: now.UnixMilli() + 1, expires: now.Unix() + 100}, false},
		{"lease over, within skew", record{status: StatusInProgress, leaseMs: now.UnixMilli() - 999, expires: now.Unix() + 100}, false},
		{"lease over by more than skew", record{status: StatusInProgress, leaseMs: now.UnixMilli() - 1001, expires: now.Unix() + 100}, true},
		{"complete, lease irrelevant", record{status: StatusComplete, expires: now.Unix() + 100}, false},
		{"complete, retention within skew", record{status: StatusComplete, expires: now.Unix() - 1}, false},
		{"complete, retention over", record{status: StatusComplete, expires: now.Unix() - 2}, true},
	} {
		if got := tc.r.expired(now, skew); got != tc.want {
			t.Errorf("%s: expired = %v, want %v", tc.name, got, tc.want)
		}
	}
}
