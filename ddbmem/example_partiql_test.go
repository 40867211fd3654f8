package ddbmem_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"
	"github.com/tablekit/tablekit/ddbmem"
)

// PartiQL statements run on the engine as on DynamoDB: INSERT refuses an
// existing item, a SELECT with the partition key reads like a Query, and
// UPDATE's extra WHERE terms are its condition.
func ExampleDB_ExecuteStatement() {
	ctx := context.Background()
	db := ddbmem.New()
	_, err := db.CreateTable(ctx, &dynamodb.CreateTableInput{
		TableName:   aws.String("app"),
		BillingMode: types.BillingModePayPerRequest,
		AttributeDefinitions: []types.AttributeDefinition{
			{AttributeName: aws.String("pk"), AttributeType: types.ScalarAttributeTypeS},
			{AttributeName: aws.String("sk"), AttributeType: types.ScalarAttributeTypeS},
		},
		KeySchema: []types.KeySchemaElement{
			{AttributeName: aws.String("pk"), KeyType: types.KeyTypeHash},
			{AttributeName: aws.String("sk"), KeyType: types.KeyTypeRange},
		},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	run := func(stmt string, params ...types.AttributeValue) []map[string]types.AttributeValue {
		out, err := db.ExecuteStatement(ctx, &dynamodb.ExecuteStatementInput{Statement: aws.String(stmt), Parameters: params})
		var dup *types.DuplicateItemException
		var ccf *types.ConditionalCheckFailedException
		switch {
		case errors.As(err, &dup):
			fmt.Println("duplicate:", aws.ToString(dup.Message))
		case errors.As(err, &ccf):
			fmt.Println("condition:", aws.ToString(ccf.Message))
		case err != nil:
			fmt.Println(err)
		default:
			return out.Items
		}
		return nil
	}
	kim := &types.AttributeValueMemberS{Value: "USER#kim"}
	run(`INSERT INTO "app" VALUE {'pk': ?, 'sk': 'ORDER#001', 'total': 9.90, 'status': 'PAID'}`, kim)
	run(`INSERT INTO "app" VALUE {'pk': ?, 'sk': 'ORDER#002', 'total': 15.50, 'status': 'PAID'}`, kim)
	run(`INSERT INTO "app" VALUE {'pk': ?, 'sk': 'ORDER#001', 'total': 1}`, kim)
	run(`UPDATE "app" SET status = 'SHIPPED' WHERE pk = ? AND sk = 'ORDER#002' AND status = 'NEW'`, kim)
	run(`UPDATE "app" SET status = 'SHIPPED' WHERE pk = ? AND sk = 'ORDER#002' AND status = 'PAID'`, kim)
	for _, it := range run(`SELECT sk, total, status FROM "app" WHERE pk = ? AND begins_with(sk, 'ORDER#') ORDER BY sk DESC`, kim) {
		fmt.Println(it["sk"].(*types.AttributeValueMemberS).Value, it["total"].(*types.AttributeValueMemberN).Value, it["status"].(*types.AttributeValueMemberS).Value)
	}
	// Output:
	// duplicate: Duplicate primary key exists in table
	// condition: The conditional request failed
	// ORDER#002 15.5 SHIPPED
	// ORDER#001 9.9 PAID
}
