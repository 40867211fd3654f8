package jsonscan_test

import (
	"fmt"

	"github.com/tablekit/tablekit/internal/jsonscan"
)

func Example() {
	s := jsonscan.Scanner{S: ` {"S": "caf\u00e9"} `}
	var key, val string
	ok := s.Token('{')
	if ok {
		key, ok = s.Str()
	}
	ok = ok && s.Token(':')
	if ok {
		s.WS()
		val, ok = s.Str()
	}
	ok = ok && s.Token('}') && s.End()
	fmt.Println(key, val, ok)
	// Output: S café true
}
