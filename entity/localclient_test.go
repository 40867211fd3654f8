package entity_test

import (
	"context"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/dynamodb"

	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/testenv"
)

func TestLocalClient(t *testing.T) {
	t.Run("options", testLocalClientOptions)
	t.Run("DynamoDB Local", func(t *testing.T) {
		live := entity.LocalClient(testenv.DynamoEndpoint(t))
		if _, err := live.ListTables(context.Background(), &dynamodb.ListTablesInput{}); err != nil {
			t.Fatalf("ListTables on DynamoDB Local: %v", err)
		}
	})
}

func testLocalClientOptions(t *testing.T) {
	c := entity.LocalClient("http://127.0.0.1:8000", func(o *dynamodb.Options) { o.RetryMaxAttempts = 1 })
	o := c.Options()
	if o.Region != entity.LocalRegion || aws.ToString(o.BaseEndpoint) != "http://127.0.0.1:8000" || o.RetryMaxAttempts != 1 {
		t.Fatalf("options: region %q endpoint %q retries %d", o.Region, aws.ToString(o.BaseEndpoint), o.RetryMaxAttempts)
	}
	creds, err := o.Credentials.Retrieve(context.Background())
	if err != nil || creds.AccessKeyID == "" || creds.SecretAccessKey == "" {
		t.Fatalf("credentials %+v, %v", creds, err)
	}
}
