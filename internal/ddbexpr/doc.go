// Package ddbexpr parses and evaluates DynamoDB expressions for the
// embedded engine (package ddbmem): condition, filter and key condition
// expressions ([ParseCondition]), update expressions ([ParseUpdate]) and
// projection expressions ([ParseProjection]), with #name and :value
// placeholders resolved through an [Env].
//
// Parsing is independent of placeholders' values, so parsed expressions
// can be cached by their text and shared between goroutines; they are
// never modified after parsing. Errors are *SyntaxError (parse),
// *CheckError (placeholders and operand types, checked before
// evaluation) and *EvalError (evaluation), whose messages follow
// DynamoDB's; the engine turns them into ValidationExceptions.
//
// Numbers are exact decimals ([Number]) of up to 38 significant digits,
// compared and added without floating point.
package ddbexpr
