package notfound_test

import (
	"errors"
	"fmt"

	"github.com/tablekit/tablekit/cache"
	"github.com/tablekit/tablekit/entity"
	"github.com/tablekit/tablekit/internal/notfound"
)

// The table runtime and the cache share one not-found value.
func Example() {
	err := fmt.Errorf("load user u1: %w", entity.ErrNotFound)
	fmt.Println(errors.Is(err, cache.ErrNotFound), cache.ErrNotFound == notfound.Err)
	// Output: true true
}
