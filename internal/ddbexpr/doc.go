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
// DynamoDB's; the engine turns them into ValidationExceptions. Of an
// expression with several errors, the one DynamoDB names is reported:
// parsing reports syntax errors and doubled parentheses where DynamoDB's
// parser meets them, then the first in the order written of reserved
// words, function names and misused functions; [Condition.Validate]
// then checks each comparison or function in turn.
//
// Numbers are exact decimals ([Number]) of up to 38 significant digits,
// compared and added without floating point.
package ddbexpr
