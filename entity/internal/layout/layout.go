// Package layout holds what the packages of the seed layouts (codex,
// content, participation, idp) repeat in their TableOptions and NewTable.
package layout

import (
	"github.com/aws/aws-sdk-go-v2/service/dynamodb/types"

	"github.com/tablekit/tablekit/entity"
)

// Options configures o with the layout the seed tables share: string keys
// PK and SK, the Type attribute, on-demand billing, ttlAttr as the
// time-to-live attribute ("" leaves o.TTLAttr as it is), and gsis added to
// o.GSIs.
func Options(o *entity.Options, ttlAttr string, gsis ...entity.Index) {
	o.PK, o.SK, o.TypeAttr = "PK", "SK", "Type"
	if ttlAttr != "" {
		o.TTLAttr = ttlAttr
	}
	o.BillingMode = types.BillingModePayPerRequest
	o.GSIs = append(o.GSIs, gsis...)
}

// NewTable returns the table name on client configured by tableOptions and
// then optFns; name "" means defaultName.
func NewTable(client entity.Client, name, defaultName string, tableOptions func(*entity.Options), optFns []func(*entity.Options)) *entity.Table {
	if name == "" {
		name = defaultName
	}
	return entity.NewTable(client, name, append([]func(*entity.Options){tableOptions}, optFns...)...)
}
