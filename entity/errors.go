package entity

import "errors"

// Sentinel errors of the table runtime. Check them with errors.Is.
var (
	// ErrNotFound is returned when the item does not exist.
	ErrNotFound = errors.New("entity: item not found")
	// ErrConditionFailed is returned when a write's condition failed,
	// including a Create whose item already exists. It translates the
	// SDK's ConditionalCheckFailedException.
	ErrConditionFailed = errors.New("entity: condition failed")
	// ErrVersionConflict is returned when an optimistic-version check failed.
	ErrVersionConflict = errors.New("entity: version conflict")
	// ErrItemTooLarge is returned, before sending, for an item over 400 KB.
	ErrItemTooLarge = errors.New("entity: item too large")
)
