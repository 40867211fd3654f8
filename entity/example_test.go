package entity_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/entity/codex"
)

// The table schema, exported as a CloudFormation resource for a SAM
// template (seed 001 §0-§1): name injected by a parameter, one GSI.
func ExampleTable_CloudFormation() {
	tbl := entity.NewTable(nil, "FMWebAppTable", func(o *entity.Options) {
		o.GSIs = []entity.Index{{Name: "Type_CreatedAt", PK: "Type", SK: "CreatedAt"}}
	})
	js, err := tbl.CloudFormation(func(o *entity.CloudFormationOptions) {
		o.TableNameParam = "TableName"
		o.StreamViewType = types.StreamViewTypeNewAndOldImages
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(js))
	// Output:
	// {
	//   "Type": "AWS::DynamoDB::Table",
	//   "Properties": {
	//     "TableName": {
	//       "Ref": "TableName"
	//     },
	//     "BillingMode": "PAY_PER_REQUEST",
	//     "AttributeDefinitions": [
	//       {
	//         "AttributeName": "PK",
	//         "AttributeType": "S"
	//       },
	//       {
	//         "AttributeName": "SK",
	//         "AttributeType": "S"
	//       },
	//       {
	//         "AttributeName": "Type",
	//         "AttributeType": "S"
	//       },
	//       {
	//         "AttributeName": "CreatedAt",
	//         "AttributeType": "S"
	//       }
	//     ],
	//     "KeySchema": [
	//       {
	//         "AttributeName": "PK",
	//         "KeyType": "HASH"
	//       },
	//       {
	//         "AttributeName": "SK",
	//         "KeyType": "RANGE"
	//       }
	//     ],
	//     "GlobalSecondaryIndexes": [
	//       {
	//         "IndexName": "Type_CreatedAt",
	//         "KeySchema": [
	//           {
	//             "AttributeName": "Type",
	//             "KeyType": "HASH"
	//           },
	//           {
	//             "AttributeName": "CreatedAt",
	//             "KeyType": "RANGE"
	//           }
	//         ],
	//         "Projection": {
	//           "ProjectionType": "ALL"
	//         }
	//       }
	//     ],
	//     "StreamSpecification": {
	//       "StreamViewType": "NEW_AND_OLD_IMAGES"
	//     }
	//   }
	// }
}

// Item sizes are computed as DynamoDB counts them, before sending.
func ExampleItemSize() {
	item := map[string]types.AttributeValue{
		"PK":    &types.AttributeValueMemberS{Value: "USER#u001"},         // 2 + 9
		"views": &types.AttributeValueMemberN{Value: "12345"},             // 5 + 4
		"tags":  &types.AttributeValueMemberSS{Value: []string{"a", "b"}}, // 4 + 2
	}
	fmt.Println(entity.ItemSize(item))
	// Output: 26
}

// An update shown as the exact request (ElectroDB's params()), without a
// server: typed setters, automatic Type/UpdatedAt/CreatedAt.
func ExampleDryRun() {
	tbl := codex.NewTable(nil, "", func(o *entity.Options) {
		o.Now = func() time.Time { return time.Date(2025, 11, 14, 3, 0, 0, 0, time.UTC) }
	})
	posts := entity.NewStore[codex.Post](tbl)
	key, _ := codex.PostKey("c001", "p001")
	var req entity.Request
	_, err := posts.Update(context.Background(), key, entity.Changes[codex.Post]{
		entity.Set(codex.PostTitle, "2025년 3월 사업보고서"),
	}, entity.DryRun(&req))
	if err != nil {
		panic(err)
	}
	in := req.Input.(*dynamodb.UpdateItemInput)
	fmt.Println(req.Op)
	fmt.Println(strings.TrimSpace(*in.UpdateExpression))
	fmt.Println(*in.ConditionExpression)
	fmt.Println(in.ExpressionAttributeValues[":1"].(*types.AttributeValueMemberS).Value)
	// Output:
	// UpdateItem
	// SET #1 = :0, #2 = :1, #3 = :2, #4 = if_not_exists(#4, :3)
	// attribute_exists (#0)
	// Post
}

// A client for DynamoDB Local (or any local endpoint): placeholder
// credentials and a fixed region, nothing read from the environment.
func ExampleLocalClient() {
	client := entity.LocalClient("http://127.0.0.1:8000")
	tbl := entity.NewTable(client, "AppTable")
	fmt.Println(tbl.Name(), client.Options().Region)
	// Output: AppTable us-east-1
}

// A table that does not declare an index an entity writes is caught when
// the store is made: CheckSchema returns the error and NewStore panics
// with it.
func ExampleCheckSchema() {
	tbl := entity.NewTable(nil, "notes") // no GSIs declared
	err := entity.CheckSchema(tbl, new(Note).EntitySchema())
	var se *entity.SchemaError
	fmt.Println(errors.As(err, &se), se.Index)
	fmt.Println(err)
	// Output:
	// true GSI1
	// entity: schema of NOTE does not fit table notes: index GSI1 attribute GSI1PK: the table declares no index "GSI1": declare the indexes of the entity's package when making the table, entity.NewTable(client, name, func(o *entity.Options) { o.GSIs = append(o.GSIs, yourpkg.GSIs...) }) (keygen generates GSIs and LSIs next to the entity), or add entity.Index{Name: "GSI1", PK: "GSI1PK", SK: "GSI1SK"} to Options.GSIs (Options.LSIs for a local index)
}

type traceKey struct{}

// spans is a Tracer that opens a span per request under the caller's span
// found in the context, and prints it when the request ends.
type spans struct{}

func (spans) TraceStart(ctx context.Context, ev entity.TraceStartEvent) context.Context {
	parent, _ := ctx.Value(traceKey{}).(string)
	return context.WithValue(ctx, traceKey{}, parent+" > "+ev.Op)
}

func (spans) TraceEnd(ctx context.Context, ev entity.TraceEvent) {
	fmt.Println(ctx.Value(traceKey{}), ev.Err == nil, len(ev.Consumed))
}

// A Tracer receives the call's context, so the runtime's requests nest
// under the caller's spans.
func ExampleTracer() {
	ctx := context.Background()
	tbl := codex.NewTable(ddbmem.New(), "")
	if err := tbl.EnsureTable(ctx); err != nil {
		panic(err)
	}
	tbl = codex.NewTable(tbl.Client(), "", func(o *entity.Options) { o.Tracer = spans{} })
	users := entity.NewStore[codex.User](tbl)
	ctx = context.WithValue(ctx, traceKey{}, "GET /users/u001")
	if err := users.Put(ctx, &codex.User{ID: "u001", DisplayName: "김대연"}); err != nil {
		panic(err)
	}
	key, _ := codex.UserKey("u001")
	if _, err := users.Get(ctx, key); err != nil {
		panic(err)
	}
	// Output:
	// GET /users/u001 > PutItem true 1
	// GET /users/u001 > GetItem true 1
}
