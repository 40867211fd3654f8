package ddbmem_test

import (
	"github.com/tablekit/tablekit/ddbmem"
	"github.com/tablekit/tablekit/entity"
)

var _ entity.InputCopier = (*ddbmem.DB)(nil)
