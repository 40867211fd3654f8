package conformance

// engineBugs marks cases (by full subtest name under TestConformance, with
// spaces) that currently fail only because of an engine difference listed
// in /work/engine-diffs.md. A marked case asserts DynamoDB Local's expected
// results and logs the engine's differences instead of failing. Remove an
// entry once the engine is fixed.
var engineBugs = map[string]string{
	"table/DescribeTable/invalid name":                                       "see engine-diffs #1",
	"conditions/Condition/names":                                             "see engine-diffs #2",
	"conditions/Condition/compare two attributes":                            "see engine-diffs #2",
	"conditions/Condition/IN":                                                "see engine-diffs #2",
	"conditions/Condition/precedence and parentheses":                        "see engine-diffs #3",
	"conditions/Condition/BETWEEN bounds of different types":                 "see engine-diffs #4",
	"conditions/Condition/compare missing attribute":                         "see engine-diffs #5",
	"index/Index/filter on index key attribute":                              "see engine-diffs #5",
	"conditions/Condition/size":                                              "see engine-diffs #6",
	"updates/UpdateItem/ReturnValues UPDATED_NEW existing":                   "see engine-diffs #7",
	"updates/UpdateItem/ReturnValues UPDATED_OLD existing":                   "see engine-diffs #7",
	"index/Index/LSI KEYS_ONLY Select ALL_ATTRIBUTES fetches from the table": "see engine-diffs #8",
	"transactions/Transact/get wrong key type":                               "see engine-diffs #9",
	"transactions/Transact/wrong key type":                                   "see engine-diffs #10",
	"transactions/Transact/update arithmetic on a string":                    "see engine-diffs #11",
	"updates/UpdateItem/REMOVE list element of a missing list":               "see engine-diffs #12",
	"query/Query/Limit reached at the last item":                             "see engine-diffs #13",
}
