// Package notfound holds the one "item not found" error value that the
// table runtime (entity.ErrNotFound) and the cache (cache.ErrNotFound)
// both return, so that a cache's negative entry and a missing item match
// the same errors.Is check without the cache depending on the table
// runtime.
package notfound

import "errors"

// Err is entity.ErrNotFound and cache.ErrNotFound.
var Err = errors.New("entity: item not found")
