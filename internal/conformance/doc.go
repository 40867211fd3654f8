// Package conformance holds the differential test suite that runs the same
// DynamoDB operations against DynamoDB Local and the embedded engine
// (package ddbmem) and compares the results with go-cmp.
package conformance
