package designs

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/tablekit/tablekit/design"
)

type policyDoc struct {
	Version   string
	Statement []struct {
		Sid, Effect string
		Action      []string
		Resource    []string
	}
}

// TestIAMPolicy derives, independently of package design, the actions and
// the index ARNs that each service's declared patterns need, and compares
// them with the generated policy: exactly those, nothing else.
func TestIAMPolicy(t *testing.T) {
	for _, s := range All() {
		if s.Table == nil {
			continue
		}
		t.Run(s.Name, func(t *testing.T) {
			arn := "arn:aws:dynamodb:ap-northeast-2:123456789012:table/" + s.Table.Name()
			var wantTable, wantIndexActs, wantIndexARNs []string
			for _, p := range s.Patterns {
				a := "dynamodb:" + string(p.Op)
				if p.Index == "" {
					wantTable = append(wantTable, a)
				} else {
					wantIndexActs = append(wantIndexActs, a)
					wantIndexARNs = append(wantIndexARNs, arn+"/index/"+p.Index)
				}
			}
			norm := func(v []string) []string { slices.Sort(v); return slices.Compact(v) }
			raw, err := design.IAMPolicy(s, arn)
			if err != nil {
				t.Fatal(err)
			}
			var doc policyDoc
			if err := json.Unmarshal(raw, &doc); err != nil {
				t.Fatal(err)
			}
			got := map[string][2][]string{}
			for _, st := range doc.Statement {
				if st.Effect != "Allow" {
					t.Fatalf("statement %+v", st)
				}
				got[st.Sid] = [2][]string{st.Action, st.Resource}
			}
			want := map[string][2][]string{"Table": {norm(wantTable), {arn}}}
			if len(wantIndexARNs) > 0 {
				want["Indexes"] = [2][]string{norm(wantIndexActs), norm(wantIndexARNs)}
			}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("policy (-derived +generated):\n%s", d)
			}
			t.Logf("%s: table actions %v; index actions %v on %v", s.Name, got["Table"][0], got["Indexes"][0], got["Indexes"][1])
		})
	}
}

// TestCloudFormationPolicy checks the CloudFormation fragment: a managed
// policy whose resources refer to the table resource by GetAtt and Sub.
func TestCloudFormationPolicy(t *testing.T) {
	raw, err := design.CloudFormationPolicy(Participation(), "ParticipationTable")
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Type       string
		Properties struct {
			PolicyDocument struct {
				Statement []struct {
					Action   []string
					Resource []map[string]any
				}
			}
		}
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	st := r.Properties.PolicyDocument.Statement
	if r.Type != "AWS::IAM::ManagedPolicy" || len(st) != 2 {
		t.Fatalf("%s", raw)
	}
	if d := cmp.Diff([]map[string]any{{"Fn::GetAtt": []any{"ParticipationTable", "Arn"}}}, st[0].Resource); d != "" {
		t.Error(d)
	}
	if d := cmp.Diff([]map[string]any{{"Fn::Sub": "${ParticipationTable.Arn}/index/GSI1"}, {"Fn::Sub": "${ParticipationTable.Arn}/index/GSI2"}}, st[1].Resource); d != "" {
		t.Error(d)
	}
}
