package entity

// SetSDKExpressions makes every write build its expressions with the
// SDK's expression package (on) or, where it can, with the runtime's
// exprWriter (off, the default), for tests that compare the two.
func SetSDKExpressions(on bool) { sdkExpressions = on }

// Refreshes reports whether the store refreshes written values with the
// codec's RefreshItem.
func (s *Store[T, PT]) Refreshes() bool { return s.refreshes }
